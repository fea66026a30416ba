import Foundation
import LocationCore
import LocationPublisher
import SimulatorsCore
import Testing
import TestSupport

/// A 1 Hz track of `count` fixes from `start` (whole seconds), each a few metres east of the last.
func track(_ count: Int, from start: TimeInterval = 1_700_000_000, latitude: Double = 51.4778) -> [Location] {
    (0..<count).map { index in
        Location(
            latitude: latitude, longitude: -0.0014 + Double(index) * 0.0001, altitude: 46, horizontalAccuracy: 5,
            verticalAccuracy: 8, speed: 7, course: 90, time: Date(timeIntervalSince1970: start + Double(index)))
    }
}

/// A replay of `fixes` on `clock`, and a wait that returns once it has been started (its
/// `.watching`): a test advances the clock only then, or the replay's first fix is passed by.
func replay(_ fixes: [Location], on clock: VirtualClock) -> (source: ReplayLocationSource, started: () async -> Void) {
    let source = ReplayLocationSource(locations: fixes, clock: clock)
    let (watching, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let observation = source.addObserver { event in
        if case .connectionChanged(.watching) = event { signal.yield() }
    }
    return (source, {
        for await _ in watching { break }
        observation.cancel()
    })
}

/// The `tst` of an OwnTracks location payload, or `nil` for any other message (a `lwt`). Read
/// by a scan, not a JSON parser: a wait checks every message so far at each line that comes
/// (PayloadTests holds the payloads to JSON).
func ownTracksTime(_ payload: String) -> Int? {
    guard payload.contains(#""_type":"location""#), let key = payload.range(of: #""tst":"#) else { return nil }
    return Int(payload[key.upperBound...].prefix { $0.isNumber })
}

/// The `tst`s of the location payloads, each once, in the order they first arrived.
func arrivalOrder(_ messages: [(topic: String, payload: String)]) -> [Int] {
    var seen = Set<Int>()
    return messages.compactMap { ownTracksTime($0.payload) }.filter { seen.insert($0).inserted }
}

extension LocationPublisher {
    /// Returns the first status for which `condition` holds (the current one if it does). If none
    /// has within `limit` of real time, records an issue at the caller with the last status seen,
    /// and returns `nil`: a wait that never ends says where, and on what, not only as the test's
    /// time limit. (The limit is far longer than any such wait takes.)
    @discardableResult
    func waitForStatus(
        limit: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable (PublisherStatus) -> Bool
    ) async -> PublisherStatus? {
        let last = Watched<PublisherStatus?>(nil)
        let found = await withTaskGroup(of: PublisherStatus??.self) { group in
            group.addTask { [self] in
                for await status in statusUpdates() {
                    last.change { $0 = status }
                    if condition(status) { return .some(status) }
                }
                return .some(nil)
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return .none
            }
            let first = await group.next() ?? .none
            group.cancelAll()
            return first
        }
        guard let found else {
            if !Task.isCancelled {
                Issue.record("no status met the condition within \(limit); the last was \(String(describing: last.value))", sourceLocation: sourceLocation)
            }
            return nil
        }
        return found
    }
}
