import ArgumentParser
import CommandSupport
import DBus
import GeoClue
import LocationFacade

/// The options of `locate once`, `watch`, `monitor` and `publish` that take positions from GeoClue instead of gpsd.
package struct GeoClueOptions: ParsableArguments {
    package init() {}

    @Flag(help: "Ask GeoClue (org.freedesktop.GeoClue2 on the system bus) instead of gpsd.")
    package var geoclue = false

    @Option(help: ArgumentHelp(
        "The desktop id GeoClue and its agent know this program by (with --geoclue).",
        discussion: "The name of a .desktop file without its extension; GeoClue's configuration can allow or refuse it."))
    package var desktopId: String = "locate"

    @Option(help: "The accuracy to ask GeoClue for (with --geoclue); by default the level --accuracy needs, else exact.")
    package var geoclueAccuracy: GeoClueAccuracyLevel?

    @Option(help: ArgumentHelp(
        "The D-Bus address of the bus GeoClue is on (with --geoclue), such as unix:path=/run/dbus/system_bus_socket.",
        discussion: "Defaults to the system bus: DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket."))
    package var bus: String?

    /// Refuses GeoClue options without --geoclue, and --geoclue with a gpsd or a recording.
    package func validate(server: String?, simulate: String? = nil) throws {
        if !geoclue {
            if desktopId != "locate" || geoclueAccuracy != nil || bus != nil {
                throw ValidationError("--desktop-id, --geoclue-accuracy and --bus are for GeoClue: add --geoclue.")
            }
            return
        }
        if server != nil { throw ValidationError("--geoclue asks GeoClue, not gpsd: give either a server or --geoclue, not both.") }
        if simulate != nil { throw ValidationError("--geoclue asks GeoClue: give either --simulate or --geoclue, not both.") }
        if desktopId.isEmpty { throw ValidationError("--desktop-id must not be empty.") }
    }

    /// The GeoClue source these options describe; `accuracy` is the request's, in metres.
    package func source(accuracy: Double?) -> GeoClueLocationSource {
        let level = geoclueAccuracy ?? accuracy.map(GeoClueAccuracyLevel.init(forAccuracy:)) ?? .exact
        return GeoClueLocationSource(
            configuration: .init(desktopID: desktopId, accuracyLevel: level, bus: bus.map(DBusConnection.Address.address) ?? .system))
    }

    /// What to call the source in messages.
    package var name: String {
        "GeoClue" + (bus.map { " on \($0)" } ?? "")
    }
}

extension GeoClueAccuracyLevel: ExpressibleByArgument {
    public init?(argument: String) {
        guard let level = Self.allCases.first(where: { $0.description == argument }), level != .none else { return nil }
        self = level
    }

    public static var allValueStrings: [String] {
        allCases.filter { $0 != .none }.map(\.description)
    }
}

extension LocationError {
    /// The exit status a command ends with for this error: 77 for a refusal, 75 for a timeout,
    /// 69 for a service that is not there or went away.
    package var exitStatus: ExitStatus {
        switch self {
        case .notAuthorized: .noPermission
        case .timedOut: .temporaryFailure
        default: .unavailable
        }
    }
}
