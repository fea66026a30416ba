import ArgumentParser
import CourseFiles
import Foundation
import Geometry
import LocationCore
import Navigation
import SimulatorsCore

/// `gpsbench navigate`: following a course, for `scripts/bench.d/66-navigate.py`. (1) A winding
/// 200 km course of 20,000 points with hills, ridden at 8 m/s with 5 m of jitter, a fix a second:
/// the time `Navigator.update(with:)` takes per fix (mean and 99th percentile); and the floor of a
/// matcher with no window, the nearest point of the whole line at each fix (`Polyline.nearest(to:)`,
/// every segment). (2) A 1,000 km course of 100,000 points read from a GPX file
/// (`CourseFile.read`: parse, distances, cues, climbs): its time, and the resident memory per
/// course point. The 200 km course and its fixes are written as CSV (longitude, latitude) and the
/// 1,000 km one as GPX in `--folder`, for the peers (shapely's `project`, gpxpy's parse).
struct NavigationBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navigate",
        abstract: "Time the navigator per fix on a 200 km course and the load of a 1,000 km one; print JSON.")

    @Option(help: "The folder the peers' inputs are written to.")
    var folder: String

    static let start = GeoCoordinate(latitude: 47.0, longitude: 8.0)

    /// A winding road from `start`: `points` points 10 m apart, the heading drifting by a seeded
    /// random few degrees at each, a turn of 45 to 135 degrees (left or right) every 2 km, rolling
    /// hills of 20 m every 4 km and a climb of 3 km at 6 % every 20 km.
    static func road(points: Int, seed: UInt64) -> (positions: [GeoCoordinate], elevations: [Double?]) {
        var random = SeededRandom(seed: seed)
        var positions = [start], elevations: [Double?] = [400]
        var heading = 90.0, drift = 0.0, climbed = 0.0
        for index in 1..<points {
            drift = max(-2, min(2, drift + Double.random(in: -0.5...0.5, using: &random)))
            heading += drift
            if index % 200 == 0 { heading += Double.random(in: 45...135, using: &random) * (Bool.random(using: &random) ? 1 : -1) }
            heading = (heading + 360).truncatingRemainder(dividingBy: 360)
            positions.append(positions[index - 1].destination(bearing: heading, distance: 10))
            let along = Double(index) * 10, inCycle = along.truncatingRemainder(dividingBy: 20_000)
            // Up 180 m over the cycle's 3 km from 10 km, down again over its last 7 km.
            climbed = inCycle < 10_000 ? 0 : inCycle < 13_000 ? (inCycle - 10_000) * 0.06 : 180 * (20_000 - inCycle) / 7_000
            elevations.append(400 + 10 * sin(along / 4_000 * 2 * .pi) + climbed)
        }
        return (positions, elevations)
    }

    func run() async throws {
        let (positions, elevations) = Self.road(points: 20_000, seed: 1)
        let course = try Course(name: "200 km", positions: positions, elevations: elevations)
        // The ride: 8 m/s along the course, 5 m of seeded jitter, 5 m accuracy, a fix a second.
        var random = SeededRandom(seed: 2)
        let begin = Date(timeIntervalSince1970: 1_800_000_000)
        let fixes: [Location] = stride(from: 0.0, through: course.length, by: 8).enumerated().map { second, along in
            let point = course.line.coordinate(atDistance: along)
                .destination(bearing: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...5, using: &random))
            let time = begin.addingTimeInterval(Double(second))
            return Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5, speed: 8,
                            course: course.line.bearing(atDistance: along), time: time, receivedAt: time)
        }
        let clock = ContinuousClock()
        var navigator = Navigator(course: course, configuration: .bike)
        var durations: [Double] = []
        durations.reserveCapacity(fixes.count)
        var events = 0, finished = false
        for fix in fixes {
            let before = clock.now
            let update = navigator.update(with: fix)
            durations.append((clock.now - before).seconds)
            events += update.events.count
            finished = finished || update.progress.state == .finished
        }
        durations.sort()
        let mean = durations.reduce(0, +) / Double(durations.count)
        let p99 = durations[Int(Double(durations.count - 1) * 0.99)]
        // The floor with no window: the nearest point of the whole line, at a tenth of the fixes.
        let sampled = stride(from: 0, to: fixes.count, by: 10).map { fixes[$0] }
        let bruteStart = clock.now
        var checksum = 0.0
        for fix in sampled {
            checksum += course.line.nearest(to: GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude)).distanceAlong
        }
        let brute = (clock.now - bruteStart).seconds / Double(sampled.count)

        // The peers' inputs.
        let folderURL = URL(fileURLWithPath: folder)
        try FileManager.default.createDirectory(at: folderURL, withIntermediateDirectories: true)
        try Data(positions.map { "\($0.longitude),\($0.latitude)\n" }.joined().utf8).write(to: folderURL.appendingPathComponent("course-200km.csv"))
        try Data(fixes.map { "\($0.longitude),\($0.latitude)\n" }.joined().utf8).write(to: folderURL.appendingPathComponent("fixes-200km.csv"))
        let long = Self.road(points: 100_000, seed: 3)
        var gpx = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + #"<gpx version="1.1" creator="gpsbench" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>1000 km</name><trkseg>"# + "\n"
        for (point, elevation) in zip(long.positions, long.elevations) {
            gpx += #"<trkpt lat="\#(point.latitude)" lon="\#(point.longitude)"><ele>\#(((elevation ?? 0) * 10).rounded() / 10)</ele></trkpt>"# + "\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let longFile = folderURL.appendingPathComponent("course-1000km.gpx").path
        try Data(gpx.utf8).write(to: URL(fileURLWithPath: longFile))
        gpx = ""

        // The 1,000 km course read from its file, and what it holds in memory.
        let baseline = RegionsBench.residentBytes()
        let loadStart = clock.now
        let loaded = try CourseFile.read(contentsOf: longFile)
        let load = (clock.now - loadStart).seconds
        let resident = RegionsBench.residentBytes() - baseline
        print(#"{"points":\#(positions.count),"length":\#(course.length),"fixes":\#(fixes.count),"events":\#(events),"#
            + #""finished":\#(finished),"cues":\#(course.cues.count),"climbs":\#(course.climbs.count),"mean_seconds":\#(mean),"#
            + #""p99_seconds":\#(p99),"brute_seconds":\#(brute),"checksum":\#(checksum),"long_points":\#(loaded.line.points.count),"#
            + #""long_length":\#(loaded.length),"long_cues":\#(loaded.cues.count),"long_climbs":\#(loaded.climbs.count),"#
            + #""load_seconds":\#(load),"memory_bytes":\#(resident),"long_file":"\#(longFile)"}"#)
        withExtendedLifetime(loaded) {}
    }
}
