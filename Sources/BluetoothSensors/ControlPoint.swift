import DBus
import GPSCore
import LocationCore

/// A fitness machine's control point, across a sensor's connections: one request at a time (FTMS
/// lets a client write the next only once the last is answered; callers wait their turn, in
/// order), each written with `WriteValue` and answered by an indication whose op code is the
/// request's, or by the timeout on the sensor's clock, or by the connection's end.
///
/// A request's wait is a small state machine behind the lock (`idle → waiting(continuation) →
/// idle`): whichever of the indication, the timeout, the end of the connection, a failed write and
/// the task's cancellation comes first takes the continuation out under the lock and resumes it,
/// outside; those that come after find it gone and do nothing. An indication that finds no request
/// waiting for it (it came after its timeout) is counted and dropped.
final class ControlPoint: Sendable {
    /// The control point on one connection.
    struct Link: Sendable {
        let bus: DBusConnection
        let path: String
        let id: UInt64
    }

    private enum Exchange: Sendable {
        case idle
        case waiting(id: UInt64, opCode: UInt8, continuation: CheckedContinuation<FitnessMachineControlPoint.Response, any Error>)
    }

    private struct State: Sendable {
        var link: Link?
        var exchange = Exchange.idle
        var nextID: UInt64 = 0
        /// Whether a request holds the turn.
        var busy = false
        var queue: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state = Locked(State())
    let address: String
    let clock: ElapsedClock
    let timeout: Duration

    init(address: String, clock: ElapsedClock, timeout: Duration) {
        self.address = address
        self.clock = clock
        self.timeout = timeout
    }

    /// Whether a connection's control point is there to write to.
    var isAttached: Bool {
        state.withLock { $0.link != nil }
    }

    /// The control point at `path` on `bus` is the one written to, until ``detach(_:)``.
    func attach(bus: DBusConnection, path: String) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.link = Link(bus: bus, path: path, id: state.nextID)
            return state.nextID
        }
    }

    /// The connection of the link `id` ended: a request waiting for its answer fails.
    func detach(_ id: UInt64) {
        let waiting = state.withLock { state -> CheckedContinuation<FitnessMachineControlPoint.Response, any Error>? in
            guard state.link?.id == id else { return nil }
            state.link = nil
            guard case let .waiting(_, _, continuation) = state.exchange else { return nil }
            state.exchange = .idle
            return continuation
        }
        waiting?.resume(throwing: Disconnected())
    }

    /// An indication of the control point (on the bus connection's thread): the answer of the
    /// request waiting for it, if its op code is that request's. Returns `false` when no request
    /// waited for it (it came after its timeout, or is no response at all).
    func indicated(_ bytes: [UInt8]) -> Bool {
        // Not a response: nothing waits for it.
        guard let response = try? FitnessMachineControlPoint.Response(bytes: bytes) else { return false }
        let waiting = state.withLock { state -> CheckedContinuation<FitnessMachineControlPoint.Response, any Error>? in
            guard case let .waiting(_, opCode, continuation) = state.exchange, opCode == response.requestOpCode else { return nil }
            state.exchange = .idle
            return continuation
        }
        waiting?.resume(returning: response)
        return waiting != nil
    }

    /// The connection ended before the answer.
    struct Disconnected: Error {}

    /// Writes `request` (its `bytes`) when its turn comes and returns the machine's answer.
    /// Throws ``FitnessMachineControlError`` (not connected, timed out, disconnected, the write
    /// failed) or `CancellationError`.
    func exchange(_ request: FitnessMachineControlPoint.Request, bytes: [UInt8]) async throws -> FitnessMachineControlPoint.Response {
        try await takeTurn()
        defer { passTurn() }
        guard let link = state.withLock({ $0.link }) else { throw FitnessMachineControlError.notConnected(address: address) }
        do {
            // The indication is read as it comes, not at the next of the measurements' spaced reads.
            return try await link.bus.readingPromptly { try await answer(to: request, bytes: bytes, on: link) }
        } catch is Disconnected {
            throw FitnessMachineControlError.disconnected(request, address: address)
        }
    }

    private func answer(
        to request: FitnessMachineControlPoint.Request, bytes: [UInt8], on link: Link
    ) async throws -> FitnessMachineControlPoint.Response {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let (address, timeout, deadline) = (address, timeout, clock.now + timeout)
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FitnessMachineControlPoint.Response, any Error>) in
                let waiting = state.withLock { state -> Bool in
                    guard state.link?.id == link.id, !Task.isCancelled else { return false }
                    state.exchange = .waiting(id: id, opCode: request.opCode.rawValue, continuation: continuation)
                    return true
                }
                guard waiting else {
                    continuation.resume(throwing: Task.isCancelled ? CancellationError() : Disconnected())
                    return
                }
                timer = Task { [clock] in
                    // Cancelled: the answer came first.
                    guard (try? await clock.sleep(until: deadline)) != nil else { return }
                    self.finish(id, throwing: FitnessMachineControlError.timedOut(request, address: address, timeout: timeout))
                }
                // Written after the wait is set: an indication may come before the write's reply.
                Task {
                    do {
                        _ = try await link.bus.call(
                            BlueZ.service, path: link.path, interface: "org.bluez.GattCharacteristic1", member: "WriteValue",
                            [.bytes(bytes), .variantDictionary(["type": "request"])], timeout: timeout)
                    } catch let error as DBusError {
                        let reason = "\(error.name)\(error.message.isEmpty ? "" : ": \(error.message)")"
                        self.finish(id, throwing: FitnessMachineControlError.writeFailed(request, address: address, reason: reason))
                    } catch {
                        self.finish(id, throwing: FitnessMachineControlError.writeFailed(request, address: address, reason: "\(error)"))
                    }
                }
            }
        } onCancel: {
            finish(id, throwing: CancellationError())
        }
    }

    /// Ends the wait `id` with `error`, if it still waits.
    private func finish(_ id: UInt64, throwing error: any Error) {
        let waiting = state.withLock { state -> CheckedContinuation<FitnessMachineControlPoint.Response, any Error>? in
            guard case let .waiting(waitingID, _, continuation) = state.exchange, waitingID == id else { return nil }
            state.exchange = .idle
            return continuation
        }
        waiting?.resume(throwing: error)
    }

    // MARK: - Turns

    /// Returns when no other request holds the turn (at once if none does), in the order asked.
    private func takeTurn() async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    guard state.busy else {
                        state.busy = true
                        return true
                    }
                    state.queue.append((id, continuation))
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let queued = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                return state.queue.remove(at: index).continuation
            }
            queued?.resume(throwing: CancellationError())
        }
    }

    /// Gives the turn to the next request waiting, if any.
    private func passTurn() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.queue.isEmpty else {
                state.busy = false
                return nil
            }
            return state.queue.removeFirst().continuation
        }
        next?.resume()
    }
}
