import ArgumentParser
import Foundation
import LocationFacade
import Simulators

/// `gpsbench replay-day`: a day of 1 Hz fixes (86,400) from the in-process replay device through
/// `LocationManager.updates()` on a `VirtualClock`, for `scripts/bench.d/60-replay.py`. Generating
/// the track is not timed; everything from creating the device to the last fix consumed is.
struct ReplayDayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay-day",
        abstract: "Replay a day of 1 Hz fixes through LocationManager.updates() on a virtual clock; print JSON.")

    @Option(help: "How many fixes (one a second).")
    var fixes = 86_400

    func run() async throws {
        let track = SyntheticTrack.generate(count: fixes, seed: 86_400)
        let baseline = Self.peakResidentBytes()
        let clock = ContinuousClock()
        let started = clock.now

        let virtual = VirtualClock()
        let device = ReplayLocationSource(locations: track, clock: virtual)
        let (watching, signal) = AsyncStream.makeStream(of: Void.self)
        let observation = device.addObserver { event in
            if case .connectionChanged(.watching) = event { signal.yield() }
        }
        let manager = LocationManager(source: device, clock: virtual)
        let stream = manager.updates(buffering: .all)
        let count = fixes
        let consumer = Task {
            var delivered = 0
            var checksum = 0.0
            for try await fix in stream {
                delivered += 1
                checksum += fix.latitude
                if delivered == count { break }
            }
            return (delivered, checksum)
        }
        for await _ in watching { break }
        observation.cancel()
        await virtual.advance(by: .seconds(fixes))
        let (delivered, checksum) = try await consumer.value
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(#"{"seconds":\#(seconds),"delivered":\#(delivered),"checksum":\#(checksum),"#
            + #""peak_rss":\#(Self.peakResidentBytes()),"baseline_rss":\#(baseline)}"#)
    }

    /// ru_maxrss of this process, in bytes.
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
