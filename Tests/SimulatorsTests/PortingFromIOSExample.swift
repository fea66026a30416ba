import Foundation
import LocationFacade
import Simulators
import Synchronization
import Testing

// The README's "Porting a CoreLocation facade" example, verbatim (the README test checks that
// it is), and tests that run it against the fake gpsd on loopback.
//
// An iOS app's one-shot facade keeps `private var continuation: CheckedContinuation<...>?` in a
// class that is the location manager's delegate. Under Swift 6 that does not compile here:
// `GPSDClientDelegate` is `Sendable`, because the client calls its delegate from its own reader
// thread, so the continuation must live behind a lock. This is the port.

// README: porting-start
/// A CoreLocation-style one-shot facade over `GPSDClient`, as an iOS app writes one, ported to
/// Swift 6: the stored continuation lives in a `Mutex`, in a small state machine.
final class OneShotLocator: GPSDClientDelegate {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Location, any Error>)
        case finished
    }

    private let client: GPSDClient
    private let state = Mutex(State.idle)

    init(client: GPSDClient) {
        self.client = client
    }

    /// The first fix gpsd reports. Throws the client's error if gpsd cannot be reached, and
    /// `CancellationError` if the task is cancelled. Call it once per locator.
    func requestLocation() async throws -> Location {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelled = state.withLock { state in
                    guard case .idle = state else { return true }  // cancelled before we got here
                    state = .waiting(continuation)
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    client.delegate = self
                    client.start()
                }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    func gpsdClient(_ client: GPSDClient, didUpdateLocation location: Location) {
        finish(.success(location))
    }

    func gpsdClient(_ client: GPSDClient, didFailWithError error: LocationError) {
        if case .unreachable = error { finish(.failure(error)) }  // the rest, the client retries
    }

    /// Takes the continuation out under the lock and resumes it once, outside: a late fix, a
    /// second error or a cancellation after the end finds `.finished` and does nothing.
    private func finish(_ result: Result<Location, any Error>) {
        let continuation: CheckedContinuation<Location, any Error>? = state.withLock { state in
            defer { state = .finished }
            if case let .waiting(continuation) = state { return continuation }
            return nil
        }
        client.stop()
        continuation?.resume(with: result)
    }
}
// README: porting-end

@Suite("Example: a CoreLocation-style facade ported to Swift 6", .timeLimit(.minutes(1)))
struct PortingFromIOSExample {
    @Test func theFirstFixArrives() async throws {
        let track = SyntheticTrack.generate(count: 3, seed: 11)
        let server = FakeGPSDServer(script: .fixes(track), pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }

        let locator = OneShotLocator(client: GPSDClient(host: "127.0.0.1", port: port))
        let fix = try await locator.requestLocation()
        #expect(fix.latitude == track[0].latitude && fix.longitude == track[0].longitude)
        #expect(fix.isSimulated)
    }

    @Test func anUnreachableGPSDIsTheError() async throws {
        let port = try GPSFake.freePort()
        let locator = OneShotLocator(client: GPSDClient(host: "127.0.0.1", port: port))
        await #expect {
            try await locator.requestLocation()
        } throws: { error in
            guard case let .unreachable(host, errorPort, _)? = error as? LocationError else { return false }
            return host == "127.0.0.1" && errorPort == port
        }
    }

    @Test func cancellingTheTaskEndsTheRequest() async throws {
        // A gpsd that accepts and then says nothing: without the cancellation, the request would wait forever.
        let server = FakeGPSDServer(script: GPSDScript(), pace: .asFastAsClientsRead, faults: [.ignoreWatch])
        let port = try server.start()
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: port)
        let connected = LocationEventRecorder(observing: client)
        let locator = OneShotLocator(client: client)

        let request = Task { try await locator.requestLocation() }
        await connected.waitUntil { $0.states.contains(.connected) }
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        await connected.waitUntil { $0.states.last == .stopped }
    }

    @Test func cancelledBeforeItStartsNeverConnects() async throws {
        let client = GPSDClient(host: "127.0.0.1", port: try GPSFake.freePort())
        let events = LocationEventRecorder(observing: client)
        let locator = OneShotLocator(client: client)
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await locator.requestLocation()
        }
        await #expect(throws: CancellationError.self) { try await request.value }
        #expect(events.log.states.isEmpty)
    }
}
