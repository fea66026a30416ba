import Dispatch
import Synchronization

/// A task executor with a thread of its own, for async work that must keep time while the shared
/// concurrency pool is busy: the fake gpsd's timeline. The pool has a thread per core, and work
/// that blocks them (a test's SQLite busy wait, a synchronous import beside it) would otherwise
/// hold a fake's next report back for seconds, and the client watching it would time out.
///
/// A task started with `Task(executorPreference:)` runs here, and its awaits resume here. Call
/// ``finish()`` as the task's last step: the thread runs what is queued and ends. A job that still
/// arrives after that goes to the shared pool, so nothing is ever left unrun.
package final class DedicatedThreadExecutor: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var finishing = false
        var ended = false
    }

    private let state = Mutex(State())
    private let wakeups = DispatchSemaphore(value: 0)

    package init() {
        Threads.detach { [self] in runJobs() }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let ended = state.withLock { state in
            if !state.ended { state.jobs.append(job) }
            return state.ended
        }
        if ended {
            globalConcurrentExecutor.enqueue(job)
        } else {
            wakeups.signal()
        }
    }

    /// Lets the thread end once the jobs queued so far have run.
    package func finish() {
        state.withLock { $0.finishing = true }
        wakeups.signal()
    }

    private func runJobs() {
        while true {
            wakeups.wait()
            let next: UnownedJob? = state.withLock { state in
                if !state.jobs.isEmpty { return state.jobs.removeFirst() }
                if state.finishing { state.ended = true }
                return nil
            }
            if let next {
                next.runSynchronously(on: asUnownedTaskExecutor())
            } else if state.withLock({ $0.ended }) {
                return
            }
        }
    }
}
