import Foundation
import Geometry
import LocationCore
import Navigation
import Testing

/// The ten rides of issue 36, laid out with known truth (5 m of jitter, honest 5 m accuracies, a
/// fix a second at 8 m/s): each gets exactly the events its truth gives, cues before the turns
/// they announce and never one of another branch, and the distance along within `alongBound` of
/// the truth at every fix on the course.
@Suite struct CourseLayoutTests {
    /// Metres the distance along may be from the truth at a fix on the course: the jitter (5 m)
    /// along the course, and a fix's worth of hold (8 m) where jitter would move it backwards.
    static let alongBound = 15.0

    static func course(_ corners: [(Double, Double)]) throws -> Course {
        try Course(name: "test", positions: Plane.path(corners))
    }

    /// The events `narration` should hold: `extra` (position along, word) with the cues between
    /// `from` and `to`, ordered by where along the course they fall.
    static func expected(_ course: Course, from: Double, to: Double, _ extra: [(Double, String)]) -> [String] {
        // Ties (two cues announced at one place) in the order of the cues along the course, as
        // the navigator says them at one fix.
        let all = extra + expectedCues(course, from: from, to: to)
        return all.indices.sorted { (all[$0].0.rounded(), $0) < (all[$1].0.rounded(), $1) }.map { all[$0].1 }
    }

    static func checkAlong(_ narration: Narration, after skipped: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        var worst = 0.0
        for (fix, progress) in narration.progress.dropFirst(skipped) {
            guard let truth = fix.truthAlong, progress.state == .onCourse else { continue }
            worst = max(worst, abs(progress.distanceAlong - truth))
        }
        #expect(worst <= alongBound, "the distance along was \(worst) m from the truth", sourceLocation: sourceLocation)
    }

    /// Every cue event came at a fix before the cue's own position (not past it), on its branch.
    static func checkCuesBeforeTurns(_ narration: Narration, sourceLocation: SourceLocation = #_sourceLocation) {
        for (event, fix, _) in narration.events {
            guard case let .cue(point, _, _) = event, let along = fix.truthAlong else { continue }
            #expect(along < point.distance, "a cue at \(point.distance) m came at \(along) m", sourceLocation: sourceLocation)
            #expect(point.distance - along < 320, "a cue at \(point.distance) m came \(point.distance - along) m before it", sourceLocation: sourceLocation)
        }
    }

    @Test func figureOfEight() throws {
        // A bow tie: its diagonals cross at (200, 200), passed twice, at right angles.
        let course = try Self.course([(0, 0), (400, 400), (400, 0), (0, 400), (0, 0)])
        #expect(course.cues.map(\.kind) == [.sharpRight, .sharpRight, .sharpLeft])
        let narration = Narration(course: course, ride: Ride(course: course, legs: [.course(from: 0, to: course.length)]).fixes())
        #expect(narration.words == Self.expected(course, from: 0, to: course.length, [(0, "joined"), (course.length - 25, "finished")]))
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func outAndBack() throws {
        let course = try Self.course([(0, 0), (1000, 0), (0, 0)])
        #expect(course.cues.map(\.kind) == [.uTurn])
        let narration = Narration(course: course, ride: Ride(course: course, legs: [.course(from: 0, to: course.length)]).fixes())
        #expect(narration.words == Self.expected(course, from: 0, to: course.length, [(0, "joined"), (course.length - 25, "finished")]))
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func lollipop() throws {
        let course = try Self.course([(0, 0), (0, 500), (200, 500), (200, 900), (-200, 900), (-200, 500), (0, 500), (0, 0)])
        #expect(course.cues.map(\.kind) == [.right, .left, .left, .left, .left, .right])
        let narration = Narration(course: course, ride: Ride(course: course, legs: [.course(from: 0, to: course.length)]).fixes())
        #expect(narration.words == Self.expected(course, from: 0, to: course.length, [(0, "joined"), (course.length - 25, "finished")]))
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func threeLapsOfACircuit() throws {
        let lap: [(Double, Double)] = [(400, 0), (400, 400), (0, 400), (0, 0)]
        let course = try Self.course([(0, 0)] + lap + lap + lap)
        #expect(course.cues.count == 11)
        #expect(course.cues.allSatisfy { $0.kind == .left })
        let narration = Narration(course: course, ride: Ride(course: course, legs: [.course(from: 0, to: course.length)]).fixes())
        #expect(narration.words == Self.expected(course, from: 0, to: course.length, [(0, "joined"), (course.length - 25, "finished")]))
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func joinedHalfway() throws {
        let course = try Self.course([(0, 0), (1000, 0), (1000, 1000), (2000, 1000), (2000, 2000)])
        let narration = Narration(course: course, ride: Ride(course: course, legs: [.course(from: 1500, to: course.length)]).fixes())
        #expect(narration.words == Self.expected(course, from: 1500, to: course.length, [(1500, "joined"), (course.length - 25, "finished")]))
        #expect(abs((narration.events.first?.progress.distanceAlong ?? 0) - 1500) < Self.alongBound)
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func shortcutPastALoop() throws {
        // The course leaves the road at 1 km for a loop to the north and merges back at a shallow
        // angle (no cue there); the rider keeps to the road.
        let course = try Self.course([(0, 0), (1000, 0), (1000, 600), (1300, 600), (1300, 200), (1800, 0), (2800, 0)])
        let fixes = Ride(course: course, legs: [.course(from: 0, to: 1000), .free([(2000, 0)]), .course(from: course.length - 800, to: course.length)]).fixes()
        let narration = Narration(course: course, ride: fixes)
        #expect(narration.words == [
            "joined", "cue left 300", "cue left 100", "cue left now", "off-course", "back-on-course", "finished",
        ])
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
        // Back on course at the merge, at its distance along (not held at 1 km).
        let back = try #require(narration.events.first { $0.event == .backOnCourse })
        let truth = course.line.nearest(to: back.fix.truth).distanceAlong
        #expect(abs(back.progress.distanceAlong - truth) < Self.alongBound)
    }

    @Test func tunnelOfAMinute() throws {
        // A straight, a bend of 60° on a 500 m radius (no cue), a straight; a minute with no fix
        // on the bend.
        var corners: [(Double, Double)] = [(0, 0), (1000, 0)]
        for step in 1...12 {
            let angle = Double(step) * 5 * .pi / 180
            corners.append((1000 + 500 * sin(angle), 500 - 500 * cos(angle)))
        }
        let end = corners[corners.count - 1]
        corners.append((end.0 + 1000 * cos(.pi / 3), end.1 + 1000 * sin(.pi / 3)))
        let course = try Self.course(corners)
        #expect(course.cues.isEmpty)
        let fixes = Ride(course: course, legs: [
            .course(from: 0, to: 1050), .tunnel(from: 1050, to: 1530, seconds: 60), .course(from: 1530, to: course.length),
        ]).fixes()
        let narration = Narration(course: course, ride: fixes)
        #expect(narration.words == ["joined", "finished"])
        Self.checkAlong(narration)
    }

    @Test func excursionOffTheCourse() throws {
        let course = try Self.course([(0, 0), (3000, 0)])
        let fixes = Ride(course: course, legs: [
            .course(from: 0, to: 1000), .free([(1050, 200), (2050, 200), (2100, 0)]), .course(from: 2100, to: 3000),
        ]).fixes()
        let narration = Narration(course: course, ride: fixes)
        #expect(narration.words == ["joined", "off-course", "back-on-course", "finished"])
        Self.checkAlong(narration)
        // Told within 30 m of riding (three fixes and the jitter) of where the truth left the
        // 50 m the rider may stray, less the 5 m accuracy.
        let index = try #require(narration.progress.firstIndex { course.line.nearest(to: $0.fix.truth).distance > 55 })
        let told = try #require(narration.progress.firstIndex { $0.progress.state == .offCourse })
        #expect(told >= index && Double(told - index) * 8 <= 30)
        // Held while off course: the distance along at the event is where the rider left.
        let off = try #require(narration.events.first { $0.event == .offCourse })
        #expect(abs(off.progress.distanceAlong - 1000) < Self.alongBound + 15)
    }

    @Test func spikeClaimingFiveMetres() throws {
        let course = try Self.course([(0, 0), (2000, 0), (2000, 500)])
        let fixes = Ride(course: course, legs: [
            .course(from: 0, to: 1000), .spike(metres: 300, accuracy: 5), .course(from: 1008, to: course.length),
        ]).fixes()
        let narration = Narration(course: course, ride: fixes)
        #expect(narration.words == Self.expected(course, from: 0, to: course.length, [(0, "joined"), (course.length - 25, "finished")]))
        let spike = try #require(narration.progress.firstIndex { $0.fix.location.latitude > Plane.coordinate(0, 200).latitude })
        #expect(narration.progress[spike].progress.distanceAlong == narration.progress[spike - 1].progress.distanceAlong)
        #expect(narration.progress[spike].progress.state == .onCourse)
        Self.checkAlong(narration)
    }

    @Test func riddenBackwards() throws {
        let course = try Self.course([(0, 0), (1000, 0), (1000, 1000), (2000, 1000), (2000, 2000)])
        let narration = Narration(course: course, ride: Ride(course: course, legs: [.course(from: course.length, to: 0)]).fixes())
        #expect(narration.words == ["joined", "wrong-way"])
        let wrong = try #require(narration.progress.firstIndex { $0.progress.isWrongWay })
        #expect(wrong <= 5)
        Self.checkAlong(narration, after: wrong)
    }

    @Test func turnedRoundAndBackAgain() throws {
        let course = try Self.course([(0, 0), (2000, 0), (2000, 1000)])
        let fixes = Ride(course: course, legs: [
            .course(from: 0, to: 800), .course(from: 800, to: 500), .course(from: 500, to: course.length),
        ]).fixes()
        let narration = Narration(course: course, ride: fixes)
        #expect(narration.words == Self.expected(course, from: 0, to: course.length, [
            (0, "joined"), (790, "wrong-way"), (795, "right-way"), (course.length - 25, "finished"),
        ]))
    }
}
