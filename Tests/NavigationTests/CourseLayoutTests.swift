import Foundation
import Geometry
import LocationCore
import Navigation
import Testing
import TestSupport

/// The ten rides of issue 36, laid out with known truth (5 m of jitter, honest 5 m accuracies, a
/// fix a second at 8 m/s): each gets exactly the events its truth gives, cues before the turns
/// they announce and never one of another branch, and the distance along within `alongBound` of
/// the truth at every fix on the course.
@Suite struct CourseLayoutTests {
    /// Metres the distance along may be from the truth at a fix on the course: the jitter (5 m)
    /// along the course, and a fix's worth of hold (8 m) where jitter would move it backwards.
    static let alongBound = 15.0

    /// The layout ridden: its narration, whose words must be the layout's expected events.
    static func narrate(_ layout: CourseLayout, sourceLocation: SourceLocation = #_sourceLocation) -> Narration {
        let narration = Narration(course: layout.course, ride: layout.ride.fixes())
        #expect(narration.words == layout.expected, "\(layout.name)", sourceLocation: sourceLocation)
        return narration
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
        let layout = try CourseLayout.figureOfEight()
        #expect(layout.course.cues.map(\.kind) == [.sharpRight, .sharpRight, .sharpLeft])
        let narration = Self.narrate(layout)
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func outAndBack() throws {
        let layout = try CourseLayout.outAndBack()
        #expect(layout.course.cues.map(\.kind) == [.uTurn])
        let narration = Self.narrate(layout)
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func lollipop() throws {
        let layout = try CourseLayout.lollipop()
        #expect(layout.course.cues.map(\.kind) == [.right, .left, .left, .left, .left, .right])
        let narration = Self.narrate(layout)
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func threeLapsOfACircuit() throws {
        let layout = try CourseLayout.threeLaps()
        #expect(layout.course.cues.count == 11)
        #expect(layout.course.cues.allSatisfy { $0.kind == .left })
        let narration = Self.narrate(layout)
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func joinedHalfway() throws {
        let narration = Self.narrate(try CourseLayout.joinedHalfway())
        #expect(abs((narration.events.first?.progress.distanceAlong ?? 0) - 1500) < Self.alongBound)
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
    }

    @Test func shortcutPastALoop() throws {
        let layout = try CourseLayout.shortcut()
        let narration = Self.narrate(layout)
        Self.checkAlong(narration)
        Self.checkCuesBeforeTurns(narration)
        // Back on course at the merge, at its distance along (not held at 1 km).
        let back = try #require(narration.events.first { $0.event == .backOnCourse })
        let truth = layout.course.line.nearest(to: back.fix.truth).distanceAlong
        #expect(abs(back.progress.distanceAlong - truth) < Self.alongBound)
    }

    @Test func tunnelOfAMinute() throws {
        let layout = try CourseLayout.tunnel()
        #expect(layout.course.cues.isEmpty)
        Self.checkAlong(Self.narrate(layout))
    }

    @Test func excursionOffTheCourse() throws {
        let layout = try CourseLayout.excursion()
        let narration = Self.narrate(layout)
        Self.checkAlong(narration)
        // Told within 30 m of riding (three fixes and the jitter) of where the truth left the
        // 50 m the rider may stray, less the 5 m accuracy.
        let index = try #require(narration.progress.firstIndex { layout.course.line.nearest(to: $0.fix.truth).distance > 55 })
        let told = try #require(narration.progress.firstIndex { $0.progress.state == .offCourse })
        #expect(told >= index && Double(told - index) * 8 <= 30)
        // Held while off course: the distance along at the event is where the rider left.
        let off = try #require(narration.events.first { $0.event == .offCourse })
        #expect(abs(off.progress.distanceAlong - 1000) < Self.alongBound + 15)
    }

    @Test func spikeClaimingFiveMetres() throws {
        let narration = Self.narrate(try CourseLayout.spike())
        let spike = try #require(narration.progress.firstIndex { $0.fix.location.latitude > Plane.coordinate(0, 200).latitude })
        #expect(narration.progress[spike].progress.distanceAlong == narration.progress[spike - 1].progress.distanceAlong)
        #expect(narration.progress[spike].progress.state == .onCourse)
        Self.checkAlong(narration)
    }

    @Test func riddenBackwards() throws {
        let narration = Self.narrate(try CourseLayout.backwards())
        let wrong = try #require(narration.progress.firstIndex { $0.progress.isWrongWay })
        #expect(wrong <= 5)
        Self.checkAlong(narration, after: wrong)
    }

    @Test func turnedRoundAndBackAgain() throws {
        _ = Self.narrate(try CourseLayout.turnedRound())
    }

    /// The matcher's alternative, measured on the same rides: the nearest pass at each fix (what
    /// a windowed search reduces to when its window holds two branches). It loses the branch on
    /// every course that passes a place twice, which is why the navigator decodes an HMM.
    @Test func nearestPassAloneLosesTheBranch() throws {
        var lost: [String] = []
        for layout in try CourseLayout.all() {
            var navigator = Navigator(course: layout.course)
            var worst = 0.0
            for fix in layout.ride.fixes() {
                _ = navigator.update(with: fix.location)
                guard let truth = fix.truthAlong else { continue }
                let point = GeoCoordinate(latitude: fix.location.latitude, longitude: fix.location.longitude)
                worst = max(worst, abs(layout.course.line.nearest(to: point).distanceAlong - truth))
            }
            if worst > Self.alongBound { lost.append(layout.name) }
        }
        #expect(lost == ["figure of eight", "out and back", "lollipop", "three laps"])
    }
}
