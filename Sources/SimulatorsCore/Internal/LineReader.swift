#if canImport(Glibc)
import Glibc
#endif

/// Reads a file line by line through a fixed buffer, so a log of any length is read in constant
/// memory. Lines end with LF (a CR before it is dropped); a line longer than the buffer is an
/// error, not a reason to grow without bound.
final class LineReader {
    /// Why the file could not be read on: the system's reason, or a line too long.
    struct Failure: Error {
        var line: Int
        var reason: String
    }

    /// The longest line accepted, in bytes.
    static let maximumLineLength = 1 << 20

    private let descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The number of the line ``next()`` returned last (1 for the first).
    private(set) var lineNumber = 0

    /// Opens `path`, or throws the system's reason (which says "Is a directory" for a folder).
    init(path: String) throws(Failure) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(line: 0, reason: String(cString: strerror(errno))) }
        buffer = [UInt8](repeating: 0, count: 256 * 1024)
    }

    deinit {
        close(descriptor)
    }

    /// Calls `body` with the next line's bytes (valid only during the call), or returns `nil` at
    /// the end of the file.
    func next<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T? {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                let lineStart = start
                start = newline + 1
                return try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<lineEnd])) }
            }
            if atEnd {
                guard start < end else { return nil }
                lineNumber += 1
                let lineStart = start
                start = end
                return try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<end])) }
            }
            try fill()
        }
    }

    private func fill() throws(Failure) {
        if start > 0 {
            buffer.withUnsafeMutableBytes { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if end == buffer.count {
            guard buffer.count < Self.maximumLineLength else {
                throw Failure(line: lineNumber + 1, reason: "a line longer than \(Self.maximumLineLength) bytes")
            }
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                read(descriptor, bytes.baseAddress! + end, bytes.count - end)
            }
            if count > 0 {
                end += count
                return
            }
            if count == 0 {
                atEnd = true
                return
            }
            if errno == EINTR { continue }
            throw Failure(line: lineNumber + 1, reason: String(cString: strerror(errno)))
        }
    }
}
