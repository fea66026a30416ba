#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Bytes waiting to be written to a socket, consumed from the front without copying on each write.
struct ByteQueue {
    private var storage: [UInt8] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }
    /// The bytes held, written ones not yet given back included.
    var heldBytes: Int { storage.count }

    mutating func append(_ bytes: [UInt8]) {
        storage.append(contentsOf: bytes)
    }

    /// gpsd ends every report with CRLF, and Python's `gps` module insists on it.
    static let lineEnd = "\r\n"

    /// Appends one report and gpsd's line end.
    mutating func appendReport(_ report: String) {
        storage.append(contentsOf: report.utf8)
        storage.append(contentsOf: Self.lineEnd.utf8)
    }

    /// A copy of the first `maximum` bytes waiting, to write outside the lock that guards the queue.
    func prefix(_ maximum: Int) -> [UInt8] {
        Array(storage[head..<min(storage.count, head + maximum)])
    }

    /// Drops the first `count` bytes: the ones written. The written part is given back once it is
    /// half the storage (and more than 64 KiB): a queue that a fast producer never lets drain
    /// would otherwise hold every byte ever sent.
    mutating func removeFirst(_ count: Int) {
        head += min(count, self.count)
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 1 << 20)
            head = 0
        } else if head > 1 << 16, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}

enum Sockets {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// A non-blocking TCP socket listening on 127.0.0.1:`port` (0: an ephemeral port), and its port.
    static func listen(port: UInt16) throws(Failure) -> (socket: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Failure(call: "socket", code: errno) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(listener)
            throw Failure(call: "bind(127.0.0.1:\(port))", code: code)
        }
        guard Glibc.listen(listener, 64) == 0 else {
            let code = errno
            close(listener)
            throw Failure(call: "listen", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        setNonBlocking(listener)
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port` now (the connection is closed).
    static func canConnect(port: UInt16) -> Bool {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Accepts one pending connection, non-blocking, or returns nil.
    static func accept(_ listener: Int32) -> Int32? {
        let client = Glibc.accept(listener, nil, nil)
        guard client >= 0 else { return nil }
        setNonBlocking(client)
        var yes: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return client
    }

    static func setNonBlocking(_ socket: Int32) {
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
    }

    /// Writes as much of `bytes` as the socket takes without blocking: how many were written, or
    /// `nil` if the socket failed.
    static func write(_ bytes: [UInt8], to socket: Int32) -> Int? {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                send(socket, buffer.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? written : nil
            }
            written += count
        }
        return written
    }

    enum ReadResult {
        case bytes([UInt8])
        case wouldBlock
        case closed
    }

    /// Reads what is available without blocking.
    static func read(_ socket: Int32) -> ReadResult {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { return .bytes(Array(buffer[0..<count])) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .closed
        }
    }
}
