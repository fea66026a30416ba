import CommandSupport
import Dispatch
import LocationFacade
import GPSCore

/// Collects output lines and writes them to standard output from a queue of its own, at most a
/// millisecond after the first of them: one write(2) per burst instead of one per line. A watcher
/// in a pipe still sees each fix within a millisecond; a flood costs a few writes per millisecond.
final class LineWriter: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var flushScheduled = false
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "locate.stdout")
    private static let delay = DispatchTimeInterval.milliseconds(1)

    /// Appends whatever `body` writes into the pending output.
    func append(_ body: (inout [UInt8]) -> Void) {
        let schedule = state.withLock { state in
            body(&state.pending)
            defer { state.flushScheduled = true }
            return !state.flushScheduled
        }
        if schedule {
            queue.asyncAfter(deadline: .now() + Self.delay) { [self] in flush() }
        }
    }

    /// Writes everything appended so far, and returns once it is written.
    func drain() {
        queue.sync { flush() }
    }

    private func flush() {
        let chunk = state.withLock { state in
            state.flushScheduled = false
            defer { state.pending.removeAll(keepingCapacity: true) }
            return state.pending
        }
        if !chunk.isEmpty { Output.write(chunk) }
    }
}
