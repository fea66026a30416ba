/// Why a course could not be read from a file or written to one. Each case names the file and,
/// where there is one, the place in it; ``isMissingFile`` and ``isNotACourse`` say which kind a
/// command maps to which exit code (66 and 65 in sysexits).
public enum CourseFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no file at the path, or it cannot be opened or read (`reason` is the system's).
    case missingFile(file: String, reason: String)
    /// The file is not a course: not one of the formats read, not well formed (`place`: `line 3,
    /// column 5`, `byte 1542`, `features[2].geometry`, empty when there is none), or a file of the
    /// format that holds something else (a FIT activity).
    case notACourse(file: String, place: String, reason: String)
    /// The file is a course with fewer than two positions.
    case tooFewPoints(file: String, count: Int)
    /// The course could not be written to `file` (`reason` is the system's).
    case cannotWrite(file: String, reason: String)

    /// The file the error is about.
    public var file: String {
        switch self {
        case let .missingFile(file, _), let .notACourse(file, _, _), let .tooFewPoints(file, _), let .cannotWrite(file, _): file
        }
    }

    /// Whether the input is missing or cannot be read (exit 66, `EX_NOINPUT`).
    public var isMissingFile: Bool {
        if case .missingFile = self { true } else { false }
    }

    /// Whether the input is there but is not a course that can be followed: not a course, or one
    /// of fewer than two points (exit 65, `EX_DATAERR`).
    public var isNotACourse: Bool {
        switch self {
        case .notACourse, .tooFewPoints: true
        case .missingFile, .cannotWrite: false
        }
    }

    /// `x.gpx: line 3, column 5: ...`, `x.fit: a FIT activity (file type 4), not a course.`
    public var description: String {
        switch self {
        case let .missingFile(file, reason):
            "Cannot read \(file): \(reason)."
        case let .notACourse(file, place, reason) where place.isEmpty:
            "\(file): \(reason)"
        case let .notACourse(file, place, reason):
            "\(file): \(place): \(reason)"
        case let .tooFewPoints(file, 0):
            "\(file): the course has no points; a course needs at least two."
        case let .tooFewPoints(file, count):
            "\(file): the course has \(count) point; a course needs at least two."
        case let .cannotWrite(file, reason):
            "Cannot write \(file): \(reason)."
        }
    }
}
