/// A GeoJSON file that cannot be used, and where it goes wrong.
public enum GeoJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file cannot be opened or read (no such file, no permission): `reason` is the system's.
    case cannotRead(file: String, reason: String)
    /// The file is not JSON, or not GeoJSON of the kind wanted: `path` names the member that is
    /// wrong, as `features[2].geometry.coordinates[0][3]` (empty for the whole document), and
    /// `reason` says what is wrong with it (for JSON that does not parse, with its line and column).
    case invalid(file: String, path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotRead(file, reason):
            "Cannot read \(file): \(reason)."
        case let .invalid(file, path, reason) where path.isEmpty:
            "\(file) is not valid GeoJSON: \(reason)"
        case let .invalid(file, path, reason):
            "\(file) is not valid GeoJSON at \(path): \(reason)"
        }
    }
}
