#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore

/// The acknowledgements whose removal from the outbox is not committed yet, written down at once in
/// a file beside the outbox's (`outbox.sqlite-acknowledged`), one line per position and destination:
/// `<id> <destination>`.
///
/// A ``LocationPublisher`` commits a live position's removal with the next append (one commit per
/// position, not two). Without this file, a process killed between an acknowledgement and that
/// commit sent the position again at its next start, and a reader that keeps every message (the
/// OwnTracks Recorder) kept both. With it, the next ``Outbox`` to open the file removes what it
/// lists before anything is read: a kill at any point sends nothing the destination acknowledged,
/// except one acknowledged in the microseconds before its line was written.
///
/// One `write(2)` per acknowledged batch (a few µs; the kernel keeps what a killed process wrote);
/// not synced to the disk: a power cut may lose the last lines, and those positions are sent again.
/// Emptied once the removals it lists are committed.
final class AcknowledgementJournal: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens (creating it 0600) the journal of the outbox at `outboxPath`.
    init(outboxPath: String) throws(PrivateFiles.Failure) {
        path = outboxPath + "-acknowledged"
        try PrivateFiles.createFile(path)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PrivateFiles.Failure(reason: "cannot open the acknowledgement journal \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// What the journal at `outboxPath` lists, per destination; nothing when there is none. A last
    /// line cut short by the kill is left out (its position is sent again: nothing lost).
    static func read(outboxPath: String) -> [String: [Int64]] {
        guard let data = FileManager.default.contents(atPath: outboxPath + "-acknowledged") else { return [:] }  // none: nothing to remove
        let contents = [UInt8](data)
        var removals: [String: [Int64]] = [:]
        var lines = contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()  // after the last newline: empty, or a line cut short
        for line in lines {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")),
                  let id = Int64(String(decoding: line[..<space], as: UTF8.self)) else { continue }
            removals[unescaped(line[line.index(after: space)...]), default: []].append(id)
        }
        return removals
    }

    /// Writes down that `destination` acknowledged `ids`. Returns whether it was written: a full
    /// disk loses the lines, and a kill before the commit then sends those positions again.
    @discardableResult
    func record(_ ids: [Int64], for destination: String) -> Bool {
        let name = Self.escaped(destination)
        var text = ""
        for id in ids { text += "\(id) \(name)\n" }
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            write(descriptor, bytes.baseAddress, bytes.count) == bytes.count
        } ?? false
    }

    /// Empties the journal: what it listed is committed.
    func clear() {
        _ = ftruncate(descriptor, 0)  // left full, it only removes again what is gone: harmless
    }

    /// A destination's name on one line: `%` and the line break escaped.
    private static func escaped(_ name: String) -> String {
        guard name.contains(where: { $0 == "%" || $0 == "\n" }) else { return name }
        return name.replacing("%", with: "%25").replacing("\n", with: "%0A")
    }

    private static func unescaped(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).replacing("%0A", with: "\n").replacing("%25", with: "%")
    }
}
