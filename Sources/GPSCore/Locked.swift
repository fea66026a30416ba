import Glibc

/// A value behind a pthread mutex.
///
/// Swift's `Synchronization.Mutex` would do, but its prebuilt library is not instrumented for
/// ThreadSanitizer, which then reports every access it guards as a race; pthread mutexes are
/// intercepted by TSan, so our CI run with `--sanitize=thread` sees real races only.
package final class Locked<State> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

/// Like swift-nio's `NIOLockedValueBox`, the box is shared across threads only when what it holds
/// may be: a lock does not make a non-`Sendable` value safe to hand from one thread to another.
extension Locked: @unchecked Sendable where State: Sendable {}
