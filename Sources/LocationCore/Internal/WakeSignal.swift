#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A self-pipe that one thread signals and another waits on with poll(2), alone or beside a socket.
package final class WakeSignal: Sendable {
    /// The read end, which poll(2) watches.
    package let fileDescriptor: Int32
    private let writeEnd: Int32

    package init() {
        var ends: [Int32] = [-1, -1]
        let status = pipe(&ends)
        precondition(status == 0, "pipe failed: \(String(cString: strerror(errno)))")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        Glibc.close(fileDescriptor)
        Glibc.close(writeEnd)
    }

    /// Wakes the waiter. Signals before the wait are not lost (a full pipe is already signalled).
    package func signal() {
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd, &byte, 1)
    }

    /// Clears pending signals.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while Glibc.read(fileDescriptor, &bytes, bytes.count) > 0 {}
    }

    /// What a ``wait(for:timeout:)`` saw.
    package struct Readiness {
        package var woken = false
        package var socketReadable = false
        package var socketFailed = false

        package init(woken: Bool = false, socketReadable: Bool = false, socketFailed: Bool = false) {
            self.woken = woken
            self.socketReadable = socketReadable
            self.socketFailed = socketFailed
        }
    }

    /// Waits until signalled, `socket` (if any) is readable or fails, or `deadline` (a time on
    /// `clock`; `nil`: no limit) has come. Interrupted waits resume.
    ///
    /// On a clock that follows real time the deadline is poll(2)'s timeout. A test clock moves only
    /// when the test advances it, which no timeout can foresee: the thread then looks at the clock
    /// every few milliseconds of real time. (A task sleeping on the clock would not do: a test
    /// clock moved to exactly the deadline before that task got to sleep leaves it asleep for good.)
    package func wait(for socket: Int32? = nil, until deadline: Duration?, on clock: ElapsedClock) -> Readiness {
        guard let deadline, !clock.followsRealTime else {
            return wait(for: socket, timeout: deadline.map { $0 - clock.now })
        }
        while clock.now < deadline {
            let readiness = wait(for: socket, timeout: .milliseconds(5))
            if readiness.woken || readiness.socketReadable || readiness.socketFailed { return readiness }
        }
        return Readiness(woken: true)
    }

    /// Waits until signalled, `socket` (if any) is readable or fails, or `timeout` of real time
    /// passes (`nil`: no limit). Interrupted waits resume.
    package func wait(for socket: Int32? = nil, timeout: Duration? = nil) -> Readiness {
        var fds = [pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)]
        if let socket {
            fds.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0))
        }
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                milliseconds = remaining <= .zero ? 0 : Int32(clamping: Self.milliseconds(rounding: remaining))
            }
            let count = poll(&fds, nfds_t(fds.count), milliseconds)
            if count < 0 && errno == EINTR { continue }
            var readiness = Readiness()
            readiness.woken = fds[0].revents & Int16(POLLIN) != 0
            if fds.count > 1 {
                let events = fds[1].revents
                readiness.socketReadable = events & Int16(POLLIN) != 0
                readiness.socketFailed = events & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
            }
            return readiness
        }
    }

    /// Whole milliseconds in `duration`, rounded up so a wait never ends early.
    package static func milliseconds(rounding duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond
    }
}
