import Foundation
import Geometry
import Navigation
import GPSCore

/// The ten rides of issue 36 (and one turned round), each a course, a ride along it and the
/// events its truth gives: held to the navigator (NavigationTests) and to `locate follow`
/// (LocateCommandTests) alike.
package struct CourseLayout: Sendable {
    package var name: String
    package var course: Course
    package var legs: [Ride.Leg]
    /// The events in order, as ``Narration/words``.
    package var expected: [String]

    package var ride: Ride { Ride(course: course, legs: legs) }

    static func course(_ corners: [(Double, Double)]) throws -> Course {
        try Course(name: "test", positions: Plane.path(corners))
    }

    /// `extra` (position along, word) with the cues between `from` and `to`, ordered by where
    /// along the course they fall; ties (two cues said at one place) in the cues' order, as the
    /// navigator says them at one fix.
    static func expected(_ course: Course, from: Double, to: Double, _ extra: [(Double, String)]) -> [String] {
        let all = extra + expectedCues(course, from: from, to: to)
        return all.indices.sorted { (all[$0].0.rounded(), $0) < (all[$1].0.rounded(), $1) }.map { all[$0].1 }
    }

    /// A whole course ridden from its start: joined, its cues, finished.
    static func whole(_ name: String, _ corners: [(Double, Double)]) throws -> CourseLayout {
        let course = try course(corners)
        return CourseLayout(
            name: name, course: course, legs: [.course(from: 0, to: course.length)],
            expected: expected(course, from: 0, to: course.length, [(0, "joined"), (course.length - 25, "finished")]))
    }

    /// A bow tie: its diagonals cross at (200, 200), passed twice, at right angles.
    package static func figureOfEight() throws -> CourseLayout {
        try whole("figure of eight", [(0, 0), (400, 400), (400, 0), (0, 400), (0, 0)])
    }

    package static func outAndBack() throws -> CourseLayout {
        try whole("out and back", [(0, 0), (1000, 0), (0, 0)])
    }

    package static func lollipop() throws -> CourseLayout {
        try whole("lollipop", [(0, 0), (0, 500), (200, 500), (200, 900), (-200, 900), (-200, 500), (0, 500), (0, 0)])
    }

    package static func threeLaps() throws -> CourseLayout {
        let lap: [(Double, Double)] = [(400, 0), (400, 400), (0, 400), (0, 0)]
        return try whole("three laps", [(0, 0)] + lap + lap + lap)
    }

    package static func joinedHalfway() throws -> CourseLayout {
        let course = try course([(0, 0), (1000, 0), (1000, 1000), (2000, 1000), (2000, 2000)])
        return CourseLayout(
            name: "joined halfway", course: course, legs: [.course(from: 1500, to: course.length)],
            expected: expected(course, from: 1500, to: course.length, [(1500, "joined"), (course.length - 25, "finished")]))
    }

    /// The course leaves the road at 1 km for a loop to the north and merges back at a shallow
    /// angle (no cue there); the rider keeps to the road.
    package static func shortcut() throws -> CourseLayout {
        let course = try course([(0, 0), (1000, 0), (1000, 600), (1300, 600), (1300, 200), (1800, 0), (2800, 0)])
        return CourseLayout(
            name: "shortcut", course: course,
            legs: [.course(from: 0, to: 1000), .free([(2000, 0)]), .course(from: course.length - 800, to: course.length)],
            expected: ["joined", "cue left 300", "cue left 100", "cue left now", "off-course", "back-on-course", "finished"])
    }

    /// A straight, a bend of 60° on a 500 m radius (no cue), a straight; a minute with no fix on the bend.
    package static func tunnel() throws -> CourseLayout {
        var corners: [(Double, Double)] = [(0, 0), (1000, 0)]
        for step in 1...12 {
            let angle = Double(step) * 5 * .pi / 180
            corners.append((1000 + 500 * sin(angle), 500 - 500 * cos(angle)))
        }
        let end = corners[corners.count - 1]
        corners.append((end.0 + 1000 * cos(.pi / 3), end.1 + 1000 * sin(.pi / 3)))
        let course = try course(corners)
        return CourseLayout(
            name: "tunnel", course: course,
            legs: [.course(from: 0, to: 1050), .tunnel(from: 1050, to: 1530, seconds: 60), .course(from: 1530, to: course.length)],
            expected: ["joined", "finished"])
    }

    /// 200 m off the course for a kilometre.
    package static func excursion() throws -> CourseLayout {
        let course = try course([(0, 0), (3000, 0)])
        return CourseLayout(
            name: "excursion", course: course,
            legs: [.course(from: 0, to: 1000), .free([(1050, 200), (2050, 200), (2100, 0)]), .course(from: 2100, to: 3000)],
            expected: ["joined", "off-course", "back-on-course", "finished"])
    }

    /// One fix 300 m off claiming 5 m.
    package static func spike() throws -> CourseLayout {
        let course = try course([(0, 0), (2000, 0), (2000, 500)])
        return CourseLayout(
            name: "spike", course: course,
            legs: [.course(from: 0, to: 1000), .spike(metres: 300, accuracy: 5), .course(from: 1008, to: course.length)],
            expected: expected(course, from: 0, to: course.length, [(0, "joined"), (course.length - 25, "finished")]))
    }

    /// From the finish to the start.
    package static func backwards() throws -> CourseLayout {
        let course = try course([(0, 0), (1000, 0), (1000, 1000), (2000, 1000), (2000, 2000)])
        return CourseLayout(name: "backwards", course: course, legs: [.course(from: course.length, to: 0)], expected: ["joined", "wrong-way"])
    }

    /// Turned round at 800 m, back to 500 m, and on again.
    package static func turnedRound() throws -> CourseLayout {
        let course = try course([(0, 0), (2000, 0), (2000, 1000)])
        return CourseLayout(
            name: "turned round", course: course,
            legs: [.course(from: 0, to: 800), .course(from: 800, to: 500), .course(from: 500, to: course.length)],
            expected: expected(course, from: 0, to: course.length, [
                (0, "joined"), (790, "wrong-way"), (795, "right-way"), (course.length - 25, "finished"),
            ]))
    }

    package static func all() throws -> [CourseLayout] {
        [
            try figureOfEight(), try outAndBack(), try lollipop(), try threeLaps(), try joinedHalfway(), try shortcut(),
            try tunnel(), try excursion(), try spike(), try backwards(), try turnedRound(),
        ]
    }
}

/// A layout's files as the commands read them: the course a GPX track, the ride a gpsd JSON log
/// (accuracy, speed and track as the fixes have them).
package enum LayoutFiles {
    package static func writeCourse(_ course: Course, to path: String) throws {
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>test</name><trkseg>"#
        for point in course.line.points { gpx += #"<trkpt lat="\#(point.latitude)" lon="\#(point.longitude)"/>"# }
        gpx += "</trkseg></trk></gpx>"
        try Data(gpx.utf8).write(to: URL(fileURLWithPath: path))
    }

    package static func writeRide(_ fixes: [RideFix], to path: String) throws {
        var log = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"
        for fix in fixes {
            let location = fix.location
            let time = RFC3339.string(from: location.time ?? location.receivedAt)
            let accuracy = location.horizontalAccuracy ?? 5
            log += #"{"class":"TPV","device":"/dev/ttyS0","mode":3,"time":"\#(time)","lat":\#(location.latitude),"lon":\#(location.longitude),"#
                + #""eph":\#(accuracy),"epx":\#(accuracy / 2.squareRoot()),"epy":\#(accuracy / 2.squareRoot()),"speed":\#(location.speed ?? 0),"track":\#(location.course ?? 0)}"# + "\n"
        }
        try Data(log.utf8).write(to: URL(fileURLWithPath: path))
    }
}
