import GPSCore
import Geometry

/// The NMEA 0183 sentences a plotter shows and an autopilot steers by, from a navigator's
/// progress: XTE (cross-track error), RMB (recommended minimum navigation information) and APB
/// (heading and track for an autopilot), talker `GP`, distances in nautical miles, speeds in
/// knots, bearings true. The waypoint is the next point of the course (a cue, a point of interest,
/// or the finish), its identifier its name with what NMEA reserves (`$`, `*`, `,`, `!`, `\`, `^`,
/// `~`) taken out, or `WPn` (n its place among the course's points) without one.
///
/// ```swift
/// for sentence in NavigationSentences.sentences(for: update.progress, course: course) { print(sentence, terminator: "") }
/// ```
public enum NavigationSentences {
    static let metresPerNauticalMile = 1852.0
    static let knotsPerMetrePerSecond = 3600 / 1852.0

    /// XTE, RMB and APB for `progress` on `course`, each ending `\r\n`; none without a usable fix.
    /// The arrival circle is `arrivalRadius` metres.
    public static func sentences(for progress: NavigationProgress, course: Course, arrivalRadius: Double = 50) -> [String] {
        guard let crossTrack = progress.crossTrack, let target = progress.nextPoint,
            let bearing = progress.bearingToNextPoint, let range = progress.distanceToNextPoint
        else { return [] }
        let valid = progress.state == .onCourse || progress.state == .offCourse || progress.state == .finished
        let status = valid ? "A" : "V"
        // Right of the course (a negative offset) steers left, and the other way.
        let steer = crossTrack < 0 ? "L" : "R"
        let error = TextBytes.fixed(min(9.99, abs(crossTrack) / metresPerNauticalMile), decimals: 2)
        let destination = identifier(of: target, in: course)
        let origin = course.points.last(where: { $0.distance < target.distance && $0 != target }).map { identifier(of: $0, in: course) } ?? "START"
        let arrived = range <= arrivalRadius ? "A" : "V"
        let closing = TextBytes.fixed(max(-99.9, min(99.9, (progress.velocityMadeGood ?? 0) * knotsPerMetrePerSecond)), decimals: 1)
        let latitude = NMEAFields.coordinate(target.coordinate.latitude, degreesWidth: 2, positive: "N", negative: "S")
        let longitude = NMEAFields.coordinate(target.coordinate.longitude, degreesWidth: 3, positive: "E", negative: "W")
        let rangeText = TextBytes.fixed(min(999.9, range / metresPerNauticalMile), decimals: 1)
        let bearingText = TextBytes.fixed(bearing, decimals: 1)
        // The course's own bearing from the origin to the destination, as a plotter draws the leg.
        let originCoordinate = course.points.last(where: { $0.distance < target.distance && $0 != target })?.coordinate
            ?? course.line.points[0]
        let legBearing = TextBytes.fixed(originCoordinate.bearing(to: target.coordinate), decimals: 1)
        // Past the perpendicular at the waypoint: the next point is behind the rider along the course.
        let perpendicular = progress.distanceAlong >= target.distance ? "A" : "V"
        let mode = valid ? "A" : "N"
        return [
            NMEAFields.sentence("GPXTE,\(status),\(status),\(error),\(steer),N,\(mode)"),
            NMEAFields.sentence(
                "GPRMB,\(status),\(error),\(steer),\(origin),\(destination),\(latitude),\(longitude),\(rangeText),\(bearingText),\(closing),\(arrived),\(mode)"),
            NMEAFields.sentence(
                "GPAPB,\(status),\(status),\(error),\(steer),N,\(arrived),\(perpendicular),\(legBearing),T,\(destination),\(bearingText),T,\(bearingText),T,\(mode)"),
        ]
    }

    /// A waypoint's identifier: its name without NMEA's reserved characters, else `WPn`.
    static func identifier(of point: CoursePoint, in course: Course) -> String {
        let reserved: Set<Character> = ["$", "*", ",", "!", "\\", "^", "~", "\r", "\n"]
        if let name = point.name?.filter({ !reserved.contains($0) && $0.isASCII }), !name.isEmpty, point.name != "Finish" || point.distance < course.length {
            return String(name.prefix(16))
        }
        if let index = course.points.firstIndex(of: point) { return "WP\(index + 1)" }
        return "FINISH"
    }
}
