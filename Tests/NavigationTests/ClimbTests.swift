import Foundation
import Geometry
import LocationCore
import Navigation
import Testing
import TestSupport

/// Climbs ahead from a laid-out profile: which rises count (ClimbRule's length, grade and score),
/// where each starts and ends, its category by Strava's bins, what the navigator says on the way
/// up, and the grade a trainer riding the course is set to.
@Suite struct ClimbTests {
    /// Metres along and elevation at the profile's corners, straight east; elevations between
    /// corners interpolated at each 10 m point.
    static let profile: [(along: Double, elevation: Double)] = [
        (0, 100), (1000, 100),  // flat
        (3000, 220),            // 2 km at 6 %: the climb, 120 m up, score 12,000 (category 4)
        (3500, 200),            // 20 m down: more than the 10 m that end a climb
        (3800, 230),            // 300 m at 10 %: too short to count (500 m)
        (5300, 80),             // down
        (6300, 100),            // 1 km at 2 %: too gentle to count (3 %)
    ]

    static func course(elevations: Bool = true) throws -> Course {
        let positions = Plane.path([(0, 0), (6300, 0)])
        let heights = positions.indices.map { index -> Double? in
            let along = Double(index) * 10
            let upper = profile.firstIndex { $0.along >= along } ?? profile.count - 1
            guard upper > 0 else { return profile[0].elevation }
            let (a, b) = (profile[upper - 1], profile[upper])
            return a.elevation + (b.elevation - a.elevation) * (along - a.along) / (b.along - a.along)
        }
        return try Course(name: "profile", positions: positions, elevations: elevations ? heights : [])
    }

    @Test func onlyTheRiseThatIsLongSteepAndBigEnoughIsAClimbWhereItLies() throws {
        let climbs = try Self.course().climbs
        try #require(climbs.count == 1, "\(climbs)")
        let climb = climbs[0]
        // The smoothing's 5 m steps move the foot and top by at most a step's length at 6 % (83 m).
        #expect(abs(climb.start - 1000) <= 90, "\(climb)")
        #expect(abs(climb.end - 3000) <= 90, "\(climb)")
        #expect(abs(climb.ascent - 120) <= 5, "\(climb)")
        #expect(abs(climb.grade - 0.06) <= 0.005, "\(climb)")
        #expect(climb.category == .fourth)
    }

    @Test("Categories by length × grade in percent, at Strava's bin edges", arguments: [
        (8_000.0, Climb.Category.uncategorized), (8_001, .fourth), (16_000, .fourth), (16_001, .third),
        (32_001, .second), (64_001, .first), (80_000, .first), (80_001, .hors),
    ])
    func categories(_ score: Double, _ category: Climb.Category) {
        #expect(Climb.Category(score: score) == category)
        // A climb of 1 km with that score: its grade is score / 100,000.
        #expect(Climb(start: 0, end: 1000, startElevation: 0, endElevation: score / 100).category == category)
    }

    @Test func theNavigatorSaysTheClimbsStartAndTopInOrderAndWhatIsLeftOnTheWayUp() throws {
        let course = try Self.course()
        let narration = Narration(course: course, ride: Ride(course: course, legs: [.course(from: 0, to: course.length)]).fixes())
        #expect(narration.words.filter { $0.hasPrefix("climb") } == ["climb-start", "climb-top"])
        let climb = course.climbs[0]
        for (event, fix, _) in narration.events {
            guard let along = fix.truthAlong else { continue }
            switch event {
            case .climbStart: #expect(abs(along - climb.start) <= 15)
            case .climbTop: #expect(abs(along - climb.end) <= 15)
            default: break
            }
        }
        #expect(NavigationEvent.climbStart(climb).text.hasPrefix("climb-start \(Int(climb.length.rounded())) m at "))
        // Halfway up: half the climb and about half its ascent left; before it, the climb ahead.
        let halfway = try #require(narration.progress.first { ($0.fix.truthAlong ?? 0) >= 2000 }?.progress)
        let left = try #require(halfway.climbDistanceLeft), ascent = try #require(halfway.climbAscentLeft)
        #expect(abs(left - (climb.end - 2000)) <= 15)
        #expect(abs(ascent - 60) <= 6)
        let before = try #require(narration.progress.first { ($0.fix.truthAlong ?? 0) >= 500 }?.progress)
        #expect(before.climb == nil && before.nextClimb == climb)
        #expect(abs((before.distanceToNextClimb ?? 0) - (climb.start - 500)) <= 15)
    }

    @Test func theGradeWhereTheRiderIsFromTheFilesOwnElevations() throws {
        let course = try Self.course()
        #expect(abs((course.grade(atDistance: 2000) ?? 0) - 0.06) < 1e-6)
        #expect(abs(course.grade(atDistance: 500) ?? 1) < 1e-6)
        #expect(abs((course.grade(atDistance: 3200) ?? 0) + 0.04) < 1e-6)
        #expect(abs((course.grade(atDistance: 3650) ?? 0) - 0.10) < 1e-6)
        // Across a corner, the rise over the window: 50 m at 6 % and 50 m at −4 %.
        #expect(abs((course.grade(atDistance: 3000) ?? 0) - 0.01) < 1e-6)
        // At the ends the window is shortened.
        #expect(abs((course.grade(atDistance: course.length) ?? 0) - 0.02) < 1e-6)
        #expect(try Self.course(elevations: false).grade(atDistance: 2000) == nil)
    }
}
