#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads of our own, for blocking work that must not hold up a Swift concurrency thread: the gpsd
/// reader, the blocking connect beside it, the fake gpsd's loop, the GPX import's reader. A pthread
/// directly, so the package needs no Foundation `Thread` (and no full Foundation) for it.
package enum Threads {
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
