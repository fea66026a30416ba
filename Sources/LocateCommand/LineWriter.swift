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
        /// The buffer the last flush wrote, emptied with its memory kept: the next `pending`.
        var spare: [UInt8] = []
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

    /// Writes what is pending. The two buffers take turns: lines are appended to one while the
    /// other is written, and neither is reallocated. (Emptying `pending` while its bytes were still
    /// being written allocated a new buffer of the same size at every flush: glibc's per-thread
    /// arenas grew and trimmed their heaps each time, and the fresh pages faulted in, about 6% of
    /// the CPU time of `locate watch --json` in `scripts/bench client-throughput`.)
    private func flush() {
        var chunk = state.withLock { state in
            state.flushScheduled = false
            let chunk = state.pending
            state.pending = state.spare
            state.spare = []
            return chunk
        }
        if !chunk.isEmpty { Output.write(chunk) }
        chunk.removeAll(keepingCapacity: true)
        state.withLock { $0.spare = chunk }
    }
}
