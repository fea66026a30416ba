import Dispatch
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT (Ctrl-C) and SIGTERM as events, so that a command ends cleanly: a replay stops its
/// private gpsd, a recording keeps what it has, an import keeps the tracks it finished and an
/// export leaves no temporary file.
public final class Interrupts: Sendable {
    private let signals: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    /// Held under a lock only to be Sendable: set once, cancelled once.
    private let sources: Mutex<[any DispatchSourceSignal]>

    /// Catches SIGINT and SIGTERM from now on (they no longer end the process) until the value
    /// goes away. Made before the work it guards starts, so that no signal finds the default
    /// action still in place (Ctrl-C at the very start of an export killed it, leaving its
    /// temporary file).
    public init() {
        (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let continuation = continuation
        sources = Mutex([SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        })
    }

    deinit {
        sources.withLock { $0.forEach { $0.cancel() } }
        continuation.finish()
    }

    /// Returns when SIGINT or SIGTERM has arrived (since ``init()``), or the task is cancelled.
    public func wait() async {
        for await _ in signals {
            return
        }
    }

    /// Returns when SIGINT or SIGTERM arrives, or the task is cancelled.
    public static func wait() async {
        await Interrupts().wait()
    }

    /// Runs `operation`, cancelling it when SIGINT or SIGTERM arrives, and returns its result. The
    /// signals are caught before `operation` starts.
    public static func cancelling<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let interrupts = Interrupts()
        let work = Task { try await operation() }
        let watcher = Task {
            await interrupts.wait()
            work.cancel()
        }
        defer { watcher.cancel() }
        return try await work.value
    }
}
