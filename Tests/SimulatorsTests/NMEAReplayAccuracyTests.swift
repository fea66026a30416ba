import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// A replay of an NMEA log answers what a request for accuracy asks, as real gpsd does for the
/// same log: gpsd gives the walk's fixes an `eph` of 17.1 m (its HDOP of 0.9 × 19 m), and so does
/// the replay, so `requestLocation(desiredAccuracy: 20)` is answered (it never was: the replay gave
/// no accuracy). And its satellite reports come as gpsd's SKYs do, from the log's GSA and GSV.
@Suite("An NMEA replay's accuracy and satellites", .timeLimit(.minutes(1)))
struct NMEAReplayAccuracyTests {
    @Test func aRequestForAccuracyIsAnsweredOnAReplay() async throws {
        let recording = try ReplayRecording(contentsOf: Repository.fixture("nmea/greenwich-walk.nmea"))
        let clock = VirtualClock()
        let device = recording.device(clock: clock)
        let events = LocationEventRecorder(observing: device)
        let manager = LocationManager(source: device, clock: clock)
        let fix = Task { try await manager.requestLocation(timeout: .seconds(30), desiredAccuracy: 20) }
        await events.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(30))
        let answer = try await fix.value
        #expect(answer.horizontalAccuracy == 17.1)
        // The first fix after the cold start comes before its second's GSA, with gpsd's HDOP of the
        // seconds without a fix (99.99): too coarse for the request, which waits for the next.
        let first = try #require(recording.readTimeline().compactMap(\.event.location).first)
        #expect(first.horizontalAccuracy == 1_899.81)
        #expect(answer.time == first.time.map { $0.addingTimeInterval(1) })
    }

    @Test func aReplaysSatelliteReportsAreTheLogsGSAAndGSV() async throws {
        let recording = try ReplayRecording(contentsOf: Repository.fixture("nmea/greenwich-walk.nmea"))
        let clock = VirtualClock()
        let device = recording.device(clock: clock)
        let events = LocationEventRecorder(observing: device)
        device.start()
        await events.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(10))
        let skies = events.log.events.compactMap { if case let .satellites(report) = $0 { report } else { nil } }
        #expect(skies.count >= 10, "a sky a second")
        let sky = try #require(skies.last)
        #expect(sky.satellites.map(\.prn) == NMEAEncoder.defaultSky.map(\.prn), "the GSV's")
        #expect(sky.satellites.map(\.used) == NMEAEncoder.defaultSky.map(\.used), "the GSA's")
        #expect(sky.hdop == 0.9 && sky.vdop == 1.3 && sky.pdop == 1.6)
        device.stop()
    }
}
