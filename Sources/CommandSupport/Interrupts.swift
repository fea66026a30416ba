import Dispatch
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
public enum Interrupts {
    /// Returns when SIGINT or SIGTERM arrives, or the task is cancelled.
    public static func wait() async {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer {
            sources.forEach { $0.cancel() }
            continuation.finish()
        }
        for await _ in signals {
            return
        }
    }

    /// Runs `operation`, cancelling it when SIGINT or SIGTERM arrives, and returns its result.
    public static func cancelling<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let work = Task { try await operation() }
        let watcher = Task {
            await wait()
            work.cancel()
        }
        defer { watcher.cancel() }
        return try await work.value
    }
}
