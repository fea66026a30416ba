import ArgumentParser
import LocationFacade

/// `locate once --min-mode 2d|3d`: the modes a request can ask for, by their raw values, in
/// either case (`3D`, as gpsd's documentation writes it, is `3d`). `none` is no minimum at all,
/// so it is not offered.
extension FixMode: ExpressibleByArgument {
    public init?(argument: String) {
        guard let mode = FixMode(rawValue: argument.lowercased()), Self.requestable.contains(mode) else { return nil }
        self = mode
    }

    /// The modes `--min-mode` takes: 2d and 3d.
    static let requestable: [FixMode] = [.fix2D, .fix3D]

    public static var allValueStrings: [String] { requestable.map(\.rawValue) }

    /// None, so that help lists the values on the option's line (FixMode's descriptions are "2D"
    /// and "3D", which say nothing more).
    public static var allValueDescriptions: [String: String] { [:] }

    public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    public var defaultValueDescription: String { rawValue }
}
