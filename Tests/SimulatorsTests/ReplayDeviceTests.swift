import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

@Suite("NMEA decoder")
struct NMEADecoderTests {
    /// The decoder gives what gpsd gives for the walk's NMEA (the corpus suite of `locate watch`
    /// holds it to gpsd, field by field): the track, with gpsd's errors worked out from the
    /// receiver's dilutions of precision (HDOP 0.9, VDOP 1.3), and the sky of each second.
    @Test func decodesTheGreenwichWalkBackToItsTrack() {
        let (nmea, fixes) = Fixtures.greenwichWalk()
        let decoded = NMEADecoder().decode(nmea, device: "/dev/fake0")
        #expect(decoded.skippedLines == 0)
        let locations = decoded.timeline.compactMap(\.event.location)
        try? #require(locations.count == fixes.count)
        for (index, (got, want)) in zip(locations, fixes).enumerated() {
            #expect(abs(got.latitude - want.latitude) < 1e-7 && abs(got.longitude - want.longitude) < 1e-7, "\(got) vs \(want)")
            #expect(got.time == want.time)
            // gpsd holds a 3D fix through the first second whose sentences say 2D, while it holds
            // the height of the fix before (an RMC, which says nothing of heights, would blink 2D).
            #expect(got.mode == (index == 60 ? .fix3D : want.mode), "fix \(index)")
            #expect(got.isSimulated)
            #expect(got.device == "/dev/fake0")
            // gpsd's eph, HDOP × 19 m; the first fix after a second without one comes before that
            // second's GGA and GSA, with the HDOP of the no-fix second, 99.99, as gpsd's does.
            let firstAfterNoFix = index == 0 || index == 72
            #expect(got.horizontalAccuracy == (firstAfterNoFix ? 1_899.81 : 17.1), "fix \(index)")
            if want.mode == .fix3D {
                #expect(abs((got.altitude ?? .nan) - (want.altitude ?? 0)) < 1e-3)
            } else {
                #expect(got.altitude == nil, "a 2D fix carries no altitude")
            }
            #expect(got.verticalAccuracy == (got.mode < .fix3D ? nil : firstAfterNoFix ? 2_299.77 : 29.9), "fix \(index): VDOP × 23 m")
            #expect(abs((got.speed ?? .nan) - (want.speed ?? 0)) < 1e-3)
            #expect(abs((got.course ?? .nan) - (want.course ?? 0)) < 0.01)
        }
        // Six cold-start seconds and four seconds of lost fix, each one no-fix report.
        let epochs = decoded.timeline.filter { if case .satellites = $0.event { false } else { true } }
        let noFixes = epochs.filter { if case .noFix = $0.event { true } else { false } }
        #expect(noFixes.count == 10)
        // One fix or no-fix report per second, offsets from the first epoch, each followed by
        // the second's satellites (but the four seconds of lost fix, which send no GSV).
        #expect(epochs.map(\.offset) == (0..<epochs.count).map { .seconds($0) })
        let skies = decoded.timeline.compactMap { if case let .satellites(report) = $0.event { report } else { nil } }
        #expect(skies.count == epochs.count - 4)
        #expect(skies.last?.satellites.map(\.prn) == NMEAEncoder.defaultSky.map(\.prn))
        #expect(skies.last?.usedCount == 7 && skies.last?.hdop == 0.9)
    }

    @Test func skipsBadChecksumsAndNonNMEALines() {
        let fix = SyntheticTrack.generate(count: 2)
        var lines = NMEAEncoder.epoch(for: fix[0])
        lines[0] = lines[0].replacingOccurrences(of: ",A,", with: ",V,")  // checksum now wrong
        lines.insert("# a comment\r\n", at: 1)
        lines += NMEAEncoder.epoch(for: fix[1])
        let decoded = NMEADecoder().decode(lines.joined())
        #expect(decoded.skippedLines == 2)
        let locations = decoded.timeline.compactMap(\.event.location)
        #expect(locations.count == 2, "the first epoch still has GGA and GSA")
        #expect(abs(locations[1].latitude - fix[1].latitude) < 1e-7)
    }

    @Test func withoutGSATheModeComesFromGGAThenRMC() {
        let fix = SyntheticTrack.generate(count: 1)[0]
        let sentences = NMEAEncoder.epoch(for: fix)
        let ggaOnly = sentences.filter { $0.hasPrefix("$GPGGA") }.joined()
        #expect(NMEADecoder().decode(ggaOnly).timeline.first?.event.location?.mode == .fix3D)
        let rmcOnly = sentences.filter { $0.hasPrefix("$GPRMC") }.joined()
        let location = NMEADecoder().decode(rmcOnly).timeline.first?.event.location
        #expect(location?.mode == .fix2D)
        #expect(location?.time == fix.time, "RMC carries the date")
    }
}

@Suite("Replay device on a virtual clock")
struct ReplayDeviceTests {
    /// A day of 1 Hz fixes through `LocationManager.updates()`, as JSON lines.
    func replayDay(count: Int) async throws -> Data {
        let clock = VirtualClock()
        let track = SyntheticTrack.generate(count: count, seed: 86_400)
        let device = ReplayLocationSource(locations: track, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        let manager = LocationManager(source: device, clock: clock)
        let stream = manager.updates(buffering: .all)
        let consumer = Task {
            var fixes: [Location] = []
            for try await fix in stream {
                fixes.append(fix)
                if fixes.count == count { break }
            }
            return fixes
        }
        await recorder.waitUntil { $0.states.contains(.watching) }
        recorder.cancel()
        await clock.advance(by: .seconds(count))
        await device.waitUntilFinished()
        let fixes = try await consumer.value
        #expect(fixes.count == count)
        #expect(fixes.allSatisfy { $0.isSimulated })
        #expect(fixes.map(\.time) == track.map(\.time))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var output = Data()
        for fix in fixes {
            output += try encoder.encode(fix)
            output.append(0x0A)
        }
        return output
    }

    @Test func aDayReplaysByteIdenticallyRunAfterRun() async throws {
        let first = try await replayDay(count: 86_400)
        let second = try await replayDay(count: 86_400)
        #expect(first.count > 86_400 * 100)
        #expect(first == second)
    }

    @Test func speedStartOffsetAndLoopShapeThePace() async throws {
        let clock = VirtualClock()
        let track = SyntheticTrack.generate(count: 4)
        let device = ReplayLocationSource(locations: track, speed: 2, loop: true, startOffset: .seconds(2), clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        device.start()
        await clock.advance(by: .zero)
        #expect(recorder.log.locations.map(\.time) == [track[2].time], "starts at the offset, at once")
        await clock.advance(by: .milliseconds(499))
        #expect(recorder.log.locations.count == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(recorder.log.locations.count == 2, "twice as fast: the next fix half a second later")
        // After the last fix, one typical gap (1 s recorded, 0.5 s played), then the track again,
        // its times moved on by one loop (4 s).
        await clock.advance(by: .milliseconds(500))
        let looped = recorder.log.locations.last
        #expect(recorder.log.locations.count == 3)
        #expect(looped?.time == track[0].time?.addingTimeInterval(4))
        #expect(looped?.latitude == track[0].latitude)
        device.stop()
        await clock.advance(by: .seconds(10))
        #expect(recorder.log.locations.count == 3, "nothing after stop")
    }

    @Test func requestLatestFixAnswersWithTheLastFixAndItsAge() async throws {
        let clock = VirtualClock()
        let track = SyntheticTrack.generate(count: 2)
        let device = ReplayLocationSource(locations: track, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        device.start()
        await clock.advance(by: .seconds(1))
        await device.waitUntilFinished()
        await clock.advance(by: .seconds(30))
        device.requestLatestFix()
        let log = await recorder.waitUntil { !$0.cachedLocations.isEmpty }
        #expect(log.cachedLocations.first?.time == track[1].time)
        #expect(log.events.contains(.cachedLocation(log.cachedLocations[0], age: .seconds(30))))
    }

    @Test func nmeaAndGPSDLogsReplayTheSameWalk() async throws {
        let fromNMEA = try ReplayLocationSource(nmeaLog: Repository.fixture("nmea/greenwich-walk.nmea"))
        let fromGPSD = try ReplayLocationSource(gpsdLog: Repository.fixture("gpsd/greenwich-walk.json"))
        let nmeaFixes = fromNMEA.timeline.compactMap(\.event.location)
        let gpsdFixes = fromGPSD.timeline.compactMap(\.event.location).filter { $0.mode >= .fix2D }
        #expect(nmeaFixes.count == Fixtures.greenwichWalk().fixes.count)
        #expect(gpsdFixes.count == nmeaFixes.count)
        for (a, b) in zip(nmeaFixes, gpsdFixes) {
            #expect(a.time == b.time)
            #expect(abs(a.latitude - b.latitude) < 1e-6 && abs(a.longitude - b.longitude) < 1e-6)
        }
    }
}

extension LocationEvent {
    var location: Location? {
        if case let .location(location) = self { location } else { nil }
    }
}

/// A test that advances a virtual clock the moment a replay device says `.watching` must find
/// the first entry already queued (the bench of a day's replay hung on this now and then). Three
/// hundred tries take about a second, and over a minute under ThreadSanitizer beside other suites.
@Test(.timeLimit(.minutes(3)))
func aClockAdvancedAsSoonAsTheDeviceWatchesPlaysTheReplay() async {
    let track = SyntheticTrack.generate(count: 3)
    for _ in 0..<300 {
        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: track, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        Thread { device.start() }.start()
        await recorder.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(5))
        let played = recorder.log.locations.count
        #expect(played == 3)
        if played != 3 { break }
    }
}
