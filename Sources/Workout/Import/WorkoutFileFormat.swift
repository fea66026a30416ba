import FIT
import Foundation
import GZipFiles
#if canImport(Glibc)
import Glibc
#endif

/// The file formats workouts are imported from, told from a file's content, never its name:
/// a FIT header, or the root element of XML (`<gpx>`, `<TrainingCenterDatabase>`), gzip-compressed
/// or not.
///
/// ```swift
/// switch WorkoutFileFormat(contentsOf: path) {
/// case .fit: _ = try await FITImporter(store: store).importFile(at: path)
/// case .tcx: _ = try await TCXImporter(store: store).importFile(at: path)
/// case .gpx, nil: _ = try await GPXImporter(store: store).importFile(at: path)   // nil: GPX's reader says what it is not
/// }
/// ```
public enum WorkoutFileFormat: String, Sendable, Hashable, CaseIterable {
    /// GPX 1.0 or 1.1.
    case gpx
    /// A FIT file (a chain of them).
    case fit
    /// Garmin Training Center Database (TCX) v2.
    case tcx

    /// The format of the file at `path` (plain or gzip-compressed), from its first 4 KB; `nil`
    /// when it is none of them or cannot be read (the GPX importer then says why), and for what is
    /// not a regular file: a pipe's bytes, once read to tell, would be gone for the import.
    public init?(contentsOf path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
              let head = try? GZipReader.head(of: path, count: 4_096)
        else { return nil }
        self.init(head: head)
    }

    /// The format `head` (a file's first bytes, decompressed) begins as.
    init?(head: [UInt8]) {
        if FITReader.looksLikeFIT(head) {
            self = .fit
            return
        }
        guard let root = Self.rootElement(head) else { return nil }
        let local = root.split(separator: ":").last.map(String.init) ?? root
        switch local {
        case "gpx": self = .gpx
        case "TrainingCenterDatabase": self = .tcx
        default: return nil
        }
    }

    /// The name of the first element of XML text (passing over a BOM, the declaration,
    /// processing instructions, comments, a DOCTYPE and white space), if the head holds it.
    static func rootElement(_ bytes: [UInt8]) -> String? {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skip(past terminator: String) -> Bool {
            let end = Array(terminator.utf8)
            while index + end.count <= bytes.count {
                if bytes[index..<index + end.count].elementsEqual(end) {
                    index += end.count
                    return true
                }
                index += 1
            }
            return false
        }
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "<"):
                let rest = bytes[(index + 1)...]
                if rest.starts(with: Array("?".utf8)) {
                    guard skip(past: "?>") else { return nil }
                } else if rest.starts(with: Array("!--".utf8)) {
                    guard skip(past: "-->") else { return nil }
                } else if rest.starts(with: Array("!".utf8)) {
                    guard skip(past: ">") else { return nil }
                } else {
                    let name = rest.prefix { byte in
                        !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/"))
                    }
                    return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
                }
            default:
                return nil
            }
        }
        return nil
    }
}
