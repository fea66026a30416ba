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
    private let subscription: UInt64

    /// Catches SIGINT and SIGTERM from now on (they no longer end the process) and hands each one
    /// that comes to this value while it lives, and one that came before any was made (after
    /// ``catchFromStart()``) too. Made before the work it guards starts, so that no signal finds
    /// the default action still in place (Ctrl-C at the very start of an export killed it,
    /// leaving its temporary file).
    public init() {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.signals = signals
        subscription = SignalCatcher.installed.subscribe(continuation)
    }

    deinit {
        SignalCatcher.installed.unsubscribe(subscription)
    }

    /// Catches SIGINT and SIGTERM from the first line of a command's `main`, so that one that
    /// comes before the command has made its ``Interrupts`` (while it parses its arguments or opens
    /// its files) waits for it instead of ending the process; and unblocks them, since
    /// `locate publish` hands over to `locate-publish` with them blocked (a signal that came while
    /// the new program loaded is pending, and is caught now). Only for a command that makes an
    /// ``Interrupts`` on every path that runs for long: until one does, the signals are kept.
    public static func catchFromStart() {
        _ = SignalCatcher.installed
        var both = SignalCatcher.signalSet
        pthread_sigmask(SIG_UNBLOCK, &both, nil)
    }

    /// Runs `handOver` (an `execv`) with SIGINT and SIGTERM blocked, so that one that comes while
    /// the next program loads stays pending until it catches them (``catchFromStart()``) instead
    /// of ending it; the blocked mask is what `execv` passes on. Returns (the mask as it was) only
    /// when `handOver` does, that is when it failed.
    public static func blocked<Result>(during handOver: () -> Result) -> Result {
        var both = SignalCatcher.signalSet
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &both, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return handOver()
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

/// The process's one catcher of SIGINT and SIGTERM: a handler (`sigaction(2)`) that writes the
/// signal's number to a pipe, which is all a handler may do, and a Dispatch source that reads the
/// pipe and hands each signal to the ``Interrupts`` alive, or keeps it for the next one made.
///
/// Not a Dispatch signal source: libdispatch installs its handler later, on its manager thread, so
/// a signal that came between the `signal(SIGINT, SIG_IGN)` that had to go first and that moment
/// was ignored, lost (`locate publish` signalled as it began to publish went on publishing, about
/// one run in 15). The handler here is in place when ``installed`` is first read, and the pipe
/// keeps what it wrote until it is read.
private final class SignalCatcher: Sendable {
    private struct State {
        /// Signals that came while no ``Interrupts`` was alive.
        var kept: [Int32] = []
        var subscribers: [UInt64: AsyncStream<Int32>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    static let signalSet: sigset_t = {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }()

    /// The pipe's write end, for the handler: an atomic load is safe in a signal handler.
    private static let writeEnd = Atomic<Int32>(-1)

    static let installed = SignalCatcher()

    private let state = Mutex(State())
    /// Read on a Dispatch queue; set once here and never changed. `nil` where the pipe could not
    /// be made: the signals then keep their default action, ending the process.
    private nonisolated(unsafe) let reader: (any DispatchSourceRead)?

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // Out of file descriptors (EMFILE, ENFILE): the program runs on, as it would without
            // this catcher, and says that Ctrl-C now ends it at once.
            let reason = String(cString: strerror(errno))
            let warning = "warning: SIGINT and SIGTERM cannot be caught (pipe(2): \(reason)); they end the program at once, without its cleanup\n"
            _ = warning.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }  // nothing to do if stderr is gone
            reader = nil
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let readEnd = ends[0]
        Self.writeEnd.store(ends[1], ordering: .releasing)
        let reader = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        // Static, not `self`: the pipe is written only once the handler below is in place, by then
        // `installed` is this value.
        reader.setEventHandler { SignalCatcher.readPipe(readEnd) }
        reader.resume()
        self.reader = reader
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let savedErrno = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(SignalCatcher.writeEnd.load(ordering: .acquiring), &byte, 1)
            errno = savedErrno
        }
        sigfillset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    /// Adds a subscriber, which gets the signals kept so far at once.
    func subscribe(_ continuation: AsyncStream<Int32>.Continuation) -> UInt64 {
        let (id, kept) = state.withLock { state in
            defer {
                state.nextID += 1
                state.kept = []
            }
            state.subscribers[state.nextID] = continuation
            return (state.nextID, state.kept)
        }
        for number in kept { continuation.yield(number) }
        return id
    }

    func unsubscribe(_ id: UInt64) {
        let continuation = state.withLock { $0.subscribers.removeValue(forKey: id) }
        continuation?.finish()
    }

    private static func readPipe(_ readEnd: Int32) {
        var numbers = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(readEnd, &numbers, numbers.count)
            guard count > 0 else { return }
            for number in numbers[..<count] { installed.deliver(Int32(number)) }
        }
    }

    private func deliver(_ number: Int32) {
        let subscribers = state.withLock { state in
            if state.subscribers.isEmpty { state.kept.append(number) }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(number) }
    }
}
