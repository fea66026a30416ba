import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

@Suite("NMEA log")
struct NMEALogTests {
    @Test func aRecordedLogSplitsIntoEpochsAtItsPace() {
        let (nmea, _) = Fixtures.greenwichWalk()
        let log = NMEALog(text: nmea)
        #expect(log.epochs.count == 116, "6 cold-start seconds and 110 of the walk")
        #expect(log.epochs.map(\.offset) == (0..<116).map { .seconds($0) })
        #expect(log.epochs.allSatisfy { $0.sentences.first?.hasPrefix("$GPRMC") == true })
        #expect(log.text == nmea, "nothing lost or reordered")
    }

    @Test func generatedEpochsAreTheEncodersSentences() {
        let track = SyntheticTrack.generate(count: 3, interval: .seconds(2))
        let log = NMEALog(fixes: track)
        #expect(log.epochs.map(\.offset) == [.zero, .seconds(2), .seconds(4)])
        #expect(log.epochs[1].sentences == NMEAEncoder.epoch(for: track[1]))
    }
}

/// Integration tier: real gpsd reads our fake serial device as it would a USB receiver.
@Suite(
    "Fake serial device read by real gpsd",
    .enabled(if: PrivateGPSD.isAvailable, "gpsd is not installed (apt-get install gpsd)"),
    .timeLimit(.minutes(1)))
struct FakeSerialDeviceTests {
    @Test func gpsdDecodesOurNMEAToTheTrackWithin1e6Degrees() async throws {
        let track = SyntheticTrack.generate(count: 40, seed: 6)
        let device = try FakeSerialDevice()
        let gpsd = try await PrivateGPSD(devices: [device.path])
        defer { gpsd.stop() }
        let client = GPSDClient(host: "127.0.0.1", port: gpsd.port)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        await recorder.waitUntil { $0.states.contains(.watching) }

        let player = Task { try await device.play(NMEALog(fixes: track), speed: 50) }
        let log = await recorder.waitUntil { $0.locations.last?.time == track.last?.time }
        player.cancel()

        let byTime = Dictionary(uniqueKeysWithValues: track.map { ($0.time!, $0) })
        let reported = log.locations.filter { $0.mode >= .fix2D }
        // gpsd may spend the first epoch or two recognising the receiver; every fix after that arrives.
        #expect(reported.count >= track.count - 2, "gpsd reported \(reported.count) of \(track.count) fixes")
        #expect(reported.filter { $0.mode == .fix3D }.count >= track.count - 3, "and all but the first as 3D")
        for fix in reported {
            let expected = try #require(fix.time.flatMap { byTime[$0] }, "gpsd reported a time not in the track: \(fix)")
            #expect(abs(fix.latitude - expected.latitude) < 1e-6 && abs(fix.longitude - expected.longitude) < 1e-6, "\(fix) vs \(expected)")
            if fix.mode == .fix3D {
                #expect(abs((fix.altitude ?? .nan) - (expected.altitude ?? 0)) < 1e-2)
            }
            #expect(abs((fix.speed ?? .nan) - (expected.speed ?? 0)) < 1e-2)
            #expect(fix.device == device.path)
        }
    }
}
