#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads of our own, for blocking work that must not hold up a Swift concurrency thread: the gpsd
/// reader, the blocking connect beside it, the fake gpsd's loop, the GPX import's reader. A pthread
/// directly, so the package needs no Foundation `Thread` (and no full Foundation) for it.
package enum Threads {
    /// Runs `body`, which writes to a pipe or socket, with SIGPIPE blocked on this thread, and
    /// takes off one it raised before unblocking it: a write whose reader has gone (a child that
    /// ended, a gpsd that closed the connection) then fails with EPIPE instead of ending the whole
    /// process. For writes that cannot be told `MSG_NOSIGNAL`: write(2), and libgps's.
    package static func withoutPipeSignal<T>(_ body: () throws -> T) rethrows -> T {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            var noWait = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&pipeSignal, nil, &noWait) == SIGPIPE {}
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }

    /// Starts a detached thread running `body`. Returns at once.
    package static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(body: @escaping @Sendable () -> Void) {
                self.body = body
            }
        }
        let box = Unmanaged.passRetained(Box(body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(status == 0, "pthread_create failed: \(status)")
    }
}
