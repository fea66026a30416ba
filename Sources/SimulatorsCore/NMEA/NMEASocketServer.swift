#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore

/// A fake receiver on a Unix socket: real GeoClue (`geoclue --nmea-socket PATH`) connects to
/// ``path`` and reads the NMEA 0183 sentences written here, as it reads a phone modem's GPS. Any
/// number of readers may connect; each gets the sentences written from then on.
///
/// ```swift
/// let receiver = try NMEASocketServer(path: "/tmp/gps/nmea.sock")
/// // ...start geoclue --nmea-socket /tmp/gps/nmea.sock, and wait for it:
/// guard await receiver.waitForReaders(1) else { return }
/// try await receiver.play(try ReplayRecording(gpxOrNMEAContentsOf: walk), speed: 1)
/// ```
///
/// A reader that does not keep up loses sentences rather than blocking the writer, as on a
/// serial line; one that goes away is forgotten.
public final class NMEASocketServer: NMEAOutput {
    /// The socket's path.
    public let path: String
    private let listener: Int32

    private struct State {
        var readers: [Int32] = []
        var accepted = 0
        var closed = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: (count: Int, continuation: CheckedContinuation<Bool, Never>)] = [:]
    }

    private let state = Locked(State())

    /// Why the socket could not be made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, and what the program printed.
        public var description: String
    }

    /// Listens on a new Unix socket at `path` (an existing socket file there is replaced).
    public init(path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw Failure(description: "the socket path \(path) is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8)
            buffer[path.utf8.count] = 0
        }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw Failure(description: "cannot listen on \(path): \(reason)")
        }
        chmod(path, 0o666)
        self.path = path
        self.listener = listener
        Threads.detach { [weak self, listener] in
            while true {
                let reader = accept(listener, nil, nil)
                if reader < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    close(listener)  // shut down by stop()
                    return
                }
                _ = fcntl(reader, F_SETFD, FD_CLOEXEC)
                _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
                guard let self else {
                    close(reader)
                    return
                }
                self.adopt(reader)
            }
        }
    }

    deinit {
        stop()
    }

    /// How many readers have connected since the start (gone ones included).
    public var acceptedReaders: Int {
        state.withLock { $0.accepted }
    }

    /// Returns `true` once `count` readers in all have connected since the start, `false` if the
    /// server stops first or the task is cancelled.
    public func waitForReaders(_ count: Int) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Bool? = state.withLock { state in
                    if state.accepted >= count { return true }
                    if state.closed || Task.isCancelled { return false }
                    state.waiters[id] = (count, continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
        }
    }

    /// Writes `sentences` to every reader connected; one that cannot take them now misses them.
    /// The sockets do not block, and are written under the lock that `stop()` closes them under:
    /// a descriptor is never written to (or closed) after another file may have taken its number.
    @discardableResult
    public func write(_ sentences: [String]) -> Int {
        let bytes = Array(sentences.joined().utf8)
        return state.withLock { state in
            var most = 0
            for reader in state.readers {
                var written = 0
                while written < bytes.count {
                    let result = bytes[written...].withUnsafeBytes { send(reader, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if result > 0 {
                        written += result
                    } else if result < 0 && errno == EINTR {
                        continue
                    } else {
                        if result < 0 && errno != EAGAIN && errno != EWOULDBLOCK {
                            state.readers.removeAll { $0 == reader }
                            close(reader)
                        }
                        break
                    }
                }
                most = max(most, written)
            }
            return most
        }
    }

    /// Stops listening, disconnects every reader and removes the socket file.
    public func stop() {
        let stopping: (readers: [Int32], waiters: [CheckedContinuation<Bool, Never>])? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            defer {
                state.readers = []
                state.waiters = [:]
            }
            for reader in state.readers { close(reader) }
            return (state.readers, state.waiters.values.map(\.continuation))
        }
        guard let (_, waiters) = stopping else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for waiter in waiters { waiter.resume(returning: false) }
        unlink(path)
    }

    private func adopt(_ reader: Int32) {
        let ready: [CheckedContinuation<Bool, Never>]? = state.withLock { state in
            guard !state.closed else { return nil }
            state.readers.append(reader)
            state.accepted += 1
            let accepted = state.accepted
            let ready = state.waiters.filter { $0.value.count <= accepted }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        guard let ready else {
            close(reader)
            return
        }
        for waiter in ready { waiter.resume(returning: true) }
    }
}
