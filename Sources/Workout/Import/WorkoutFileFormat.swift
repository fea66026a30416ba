import FIT
import Foundation
import GPSCore
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
              let head = try? GZipReader.head(of: path, count: 4_096)  // unreadable: nil, and the importer says why
        else { return nil }
        self.init(head: head)
    }

    /// The format `head` (a file's first bytes, decompressed) begins as.
    init?(head: [UInt8]) {
        if FITReader.looksLikeFIT(head) {
            self = .fit
            return
        }
        switch XMLHead.localRootName(head) {
        case "gpx": self = .gpx
        case "TrainingCenterDatabase": self = .tcx
        default: return nil
        }
    }
}
