#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The file a ``RegionMonitor`` keeps its regions and their last proven states in, as `CLMonitor`
/// keeps them across launches: JSON, readable by its owner alone (0600), written whole to a
/// temporary file beside it and renamed over it, so that a crash leaves the old file or the new,
/// never half of one. A file that cannot be read as one is set aside (renamed to
/// `PATH.damaged`, or `PATH.damaged-2` and on), never silently replaced.
public struct RegionStateFile: Sendable {
    /// The file's path.
    public let path: String

    /// What was found when a monitor was made.
    public enum Restoration: Sendable, Hashable {
        /// There was no file: the monitor starts without regions.
        case fresh
        /// The regions of the file, this many, with their states.
        case restored(count: Int)
        /// The file could not be read as a state file (`reason`); it was renamed to `movedTo`, and
        /// the monitor starts without regions.
        case setAside(reason: String, movedTo: String)
    }

    /// A state file that cannot be read, written or set aside.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var path: String
        /// What failed, with the system's reason.
        public var reason: String

        public var description: String { "The region state file \(path): \(reason)." }
    }

    /// One region as the file keeps it.
    struct SavedRegion: Codable, Sendable {
        var identifier: String
        var condition: RegionCondition
        /// The last state the fixes proved (`nil`: never proven).
        var state: RegionState?
        var satisfiedSince: Date?
        var dwelt: Bool
    }

    struct Contents: Codable {
        var version: Int
        var regions: [SavedRegion]
    }

    static let version = 1

    public init(path: String) {
        self.path = path
    }

    /// Reads the file: its regions, or none (with the reason) when there is none or it is damaged.
    func load() throws(Failure) -> (Restoration, [SavedRegion]) {
        let bytes: [UInt8]
        do {
            bytes = try GeoJSON.read(path)
        } catch {
            if errno == ENOENT, access(path, F_OK) != 0 { return (.fresh, []) }
            throw Failure(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        let reason: String
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            let contents = try decoder.decode(Contents.self, from: Data(bytes))
            if contents.version == Self.version {
                return (.restored(count: contents.regions.count), contents.regions)
            }
            reason = "it is of version \(contents.version), and this program reads version \(Self.version)"
        } catch {
            reason = "it is not a region state file (\(error))"
        }
        let target = try setAside()
        return (.setAside(reason: reason, movedTo: target), [])
    }

    /// Renames the file to the first free `PATH.damaged`, `PATH.damaged-2`, ...
    private func setAside() throws(Failure) -> String {
        for number in 1...1000 {
            let target = number == 1 ? "\(path).damaged" : "\(path).damaged-\(number)"
            guard access(target, F_OK) != 0 else { continue }
            guard rename(path, target) == 0 else {
                throw Failure(path: path, reason: "it is damaged, and cannot be set aside as \(target): \(String(cString: strerror(errno)))")
            }
            return target
        }
        throw Failure(path: path, reason: "it is damaged, and a thousand damaged ones are already set aside beside it")
    }

    /// Writes `regions` to a temporary file (0600) beside the file, syncs it, and renames it over the file.
    func save(_ regions: [SavedRegion]) throws(Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data: Data
        do {
            data = try encoder.encode(Contents(version: Self.version, regions: regions))
        } catch {
            throw Failure(path: path, reason: "cannot be encoded: \(error)")
        }
        let temporary = "\(path).tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(path: path, reason: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "cannot write \(temporary): \(String(cString: strerror(errno)))"
                    return
                }
                offset += written
            }
        }
        if failure == nil, fchmod(descriptor, 0o600) != 0 || fsync(descriptor) != 0 {
            failure = "cannot sync \(temporary): \(String(cString: strerror(errno)))"
        }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 {
            failure = "cannot rename \(temporary) to it: \(String(cString: strerror(errno)))"
        }
        if let failure {
            unlink(temporary)
            throw Failure(path: path, reason: failure)
        }
    }
}
