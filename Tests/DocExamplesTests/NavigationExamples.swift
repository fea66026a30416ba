import Foundation
import Geometry
import GPSCore
import LocationCore
import Navigation
import Testing

// The examples of Geometry, Navigation and GPSCore's elevation smoothing, as printed in their
// `///` comments and DocC catalogs, in functions that give them what they name; the tests below
// hold the figures the comments print.

enum NavigationExamples {
    // GPSCore/ElevationHysteresis.swift
    static func hysteresis() -> [Double] {
        var smoothing = ElevationHysteresis(threshold: 5)
        let changes = [100, 103, 106, 104, 99].map { smoothing.feed($0) }   // [0, 0, 6, 0, -7]
        return changes
    }

    // Geometry/Polyline.swift, Geometry.docc/Geometry.md
    static func nearest() throws -> PolylineProjection {
        let line = try Polyline([GeoCoordinate(latitude: 50, longitude: -4), GeoCoordinate(latitude: 50.01, longitude: -4)])
        let match = line.nearest(to: GeoCoordinate(latitude: 50.005, longitude: -3.9999))
        print(match.distanceAlong, match.distance, match.isLeft)   // about 556 m along, 7 m off, on the right
        return match
    }

    // Navigation/Course/Course.swift, Navigation.docc/Navigation.md
    static func course(positions: [GeoCoordinate], elevations: [Double?]) throws -> Course {
        let course = try Course(name: "Loop", positions: positions, elevations: elevations)
        for cue in course.cues { print(cue.distance, cue.kind) }
        return course
    }

    // Navigation/Navigator/Navigator.swift, Navigation.docc/Navigation.md
    static func navigate(_ course: Course, fix: Location) -> NavigationUpdate {
        var navigator = Navigator(course: course)
        let update = navigator.update(with: fix)
        for event in update.events { print(event.name) }
        print(update.progress.distanceToGo)
        return update
    }

    // Navigation/Navigator/NavigationSentences.swift, Navigation.docc/Navigation.md
    static func sentences(_ update: NavigationUpdate, course: Course) {
        for sentence in NavigationSentences.sentences(for: update.progress, course: course) { print(sentence, terminator: "") }
    }
}

@Suite("The navigation examples print what their comments say")
struct NavigationExampleTests {
    @Test func hysteresisCountsOnlyChangesOfFiveMetres() {
        #expect(NavigationExamples.hysteresis() == [0, 0, 6, 0, -7])
    }

    @Test func nearestIsHalfwayAndSevenMetresRight() throws {
        let match = try NavigationExamples.nearest()
        #expect(abs(match.distanceAlong - 556) < 1)
        #expect(abs(match.distance - 7.2) < 0.5)
        #expect(!match.isLeft)
    }

    @Test func aFixOnTheCourseJoinsIt() throws {
        let positions = (0...10).map { GeoCoordinate(latitude: 50 + Double($0) * 0.001, longitude: -4) }
        let course = try NavigationExamples.course(positions: positions, elevations: [])
        let fix = Location(latitude: positions[2].latitude, longitude: positions[2].longitude, horizontalAccuracy: 5, time: Date(timeIntervalSince1970: 0))
        let update = NavigationExamples.navigate(course, fix: fix)
        #expect(update.events.map(\.name) == ["joined"])
        #expect(abs(update.progress.distanceToGo - course.length * 0.8) < 2)
        NavigationExamples.sentences(update, course: course)
    }
}
