import Foundation
import GPSCore
import LocationFacade
import Simulators
import Testing
import TestSupport

/// A track that says nothing of speed (a GPX file without `<speed>`, as most are) is written as
/// NMEA with the speed and course of each move from the point before: real gpsd then reports a boat
/// at 4 m/s as moving at 4 m/s, not as stopped (it used to read "0.000 knots" and no course).
enum BoatTrack {
    static let speed = 4.0    // metres per second
    static let bearing = 45.0 // degrees from north

    /// `count` points a second apart, moving at ``speed`` on ``bearing``, without speed or course.
    static func points(count: Int) -> [Location] {
        let start = Date(timeIntervalSince1970: 1_714_557_600)  // 2024-05-01T10:00:00Z
        return (0..<count).map { second in
            // Metres north and east on a sphere of the mean radius: haversine measures the same.
            let north = speed * Double(second) * cos(bearing * .pi / 180)
            let east = speed * Double(second) * sin(bearing * .pi / 180)
            let latitude = 51.4779 + north / Geodesy.meanEarthRadius * 180 / .pi
            let longitude = -0.0015 + east / (Geodesy.meanEarthRadius * cos(51.4779 * .pi / 180)) * 180 / .pi
            return Location(latitude: latitude, longitude: longitude, altitude: 5, time: start.addingTimeInterval(Double(second)))
        }
    }

    /// The track as a GPX file without `<speed>`.
    static func gpx(count: Int) -> String {
        var text = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        for point in points(count: count) {
            text += #"<trkpt lat="\#(point.latitude)" lon="\#(point.longitude)"><ele>5</ele><time>\#(RFC3339.string(from: point.time!))</time></trkpt>"#
        }
        return text + "</trkseg></trk></gpx>\n"
    }
}

@Suite("NMEA written from a track without speed")
struct NMEAMovementTests {
    @Test func aFixWithoutSpeedGetsTheSpeedAndCourseOfItsMove() throws {
        let track = BoatTrack.points(count: 3)
        let moving = NMEAEncoder.movement(of: track[1], after: track[0])
        #expect(abs((moving.speed ?? .nan) - BoatTrack.speed) < 1e-3, "\(moving)")
        #expect(abs((moving.course ?? .nan) - BoatTrack.bearing) < 0.01, "\(moving)")
        // Without a fix before there is nothing to work them out from, and a receiver says none.
        #expect(NMEAEncoder.movement(of: track[0], after: nil).speed == nil)
        let first = NMEAEncoder.epoch(for: track[0])
        #expect(first[0].hasPrefix("$GPRMC,100000.00,A,") && first[0].contains(",W,,,010524,"), "no speed, no course: \(first[0])")
        // A fix that has its own keeps them.
        var reported = track[1]
        reported.speed = 1
        reported.course = 90
        #expect(NMEAEncoder.movement(of: reported, after: track[0]) == reported)
    }

    @Test func theNMEAOfAGPXWithoutSpeedReplaysAtItsSpeed() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("boat-\(UUID()).gpx")
        try BoatTrack.gpx(count: 10).write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let nmea = try ReplayRecording(contentsOf: file).readNMEA().text
        let fixes = NMEADecoder().decode(nmea).timeline.compactMap(\.event.location)
        #expect(fixes.count == 10)
        for fix in fixes.dropFirst() {
            #expect(abs((fix.speed ?? .nan) - BoatTrack.speed) < 0.01, "\(fix)")
            #expect(abs((fix.course ?? .nan) - BoatTrack.bearing) < 0.01, "\(fix)")
        }
    }
}

/// Integration tier: real gpsd reading a GPX file without `<speed>` through the fake serial device.
@Suite(
    "A GPX track without speed read by real gpsd",
    .enabled(if: PrivateGPSD.isAvailable, "gpsd is not installed (apt-get install gpsd)"),
    .timeLimit(.minutes(1)))
struct NMEAMovementRealGPSDTests {
    @Test func gpsdReportsABoatAt4MetresASecondAsMoving() async throws {
        let count = 20
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("boat-\(UUID()).gpx")
        try BoatTrack.gpx(count: count).write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let recording = try ReplayRecording(contentsOf: file)
        let last = try #require(BoatTrack.points(count: count).last?.time)

        let device = try FakeSerialDevice()
        let gpsd = try await PrivateGPSD(devices: [device.path])
        defer { gpsd.stop() }
        let client = GPSDClient(host: "127.0.0.1", port: gpsd.port)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        await recorder.waitUntil { $0.states.contains(.watching) }
        let player = Task { try await device.play(recording, speed: 20) }
        let log = await recorder.waitUntil { $0.locations.last?.time == last }
        player.cancel()

        // gpsd may spend the first epoch or two recognising the receiver; the first fix has no
        // move before it.
        let moving = log.locations.filter { $0.mode >= .fix2D && $0.time != BoatTrack.points(count: 1)[0].time }
        #expect(moving.count >= count - 3, "gpsd reported \(moving.count) of \(count - 1) moving fixes")
        for fix in moving {
            #expect(abs((fix.speed ?? .nan) - BoatTrack.speed) < 0.01, "gpsd's speed: \(fix)")
            #expect(abs((fix.course ?? .nan) - BoatTrack.bearing) < 0.01, "gpsd's course: \(fix)")
        }
    }
}
