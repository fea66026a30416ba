import ArgumentParser
import CommandSupport
import GPSCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocateOptions
import LocationFacade
import Simulators

struct Once: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "once",
        _superCommandName: "locate",  // for its help and errors when parsed as the root (see Locate.main())
        abstract: "Print one fix, then exit.",
        discussion: """
            Waits for the first fix that meets --min-mode and --accuracy, prints it and exits \
            \(ExitStatus.success.rawValue). A fix from gpsd (or a replay of its log) is printed once its \
            epoch is whole: one without the \
            accuracy and altitude its mode gives (gpsd's first report of a second, made before the \
            receiver's GGA and GSA sentences) waits up to --epoch-wait seconds for a later report of the \
            same time, and the newest is printed when one is complete, when the receiver's next second \
            begins, or when the wait or --timeout ends. With --max-age, a fix gpsd already holds is printed at once if \
            it is no older than that: its age is gpsd's clock when it answers less the fix's GPS time, \
            which --gpsd-clock says whether to trust; a fix too old, or whose age cannot be told, is not \
            printed, and a new one is awaited. Exits \(ExitStatus.temporaryFailure.rawValue) when no fix \
            qualifies within --timeout (the best one seen goes to standard error), \
            \(ExitStatus.unavailable.rawValue) when gpsd cannot be reached or is lost, \
            \(ExitStatus.usage.rawValue) on bad usage. --simulate answers from a replay of FILE (a gpsd \
            JSON log, an NMEA log or a GPX track), with no GPS and no gpsd.

            --geoclue asks GeoClue, the location service of Linux phones and desktops, instead of \
            gpsd: it exits \(ExitStatus.unavailable.rawValue) when GeoClue (or the bus) is not there, \
            and \(ExitStatus.noPermission.rawValue) when GeoClue or the user's agent refuses this program. \
            GeoClue answers only once an agent (a desktop's or phone's shell) has registered for the \
            user; until then the request waits, and says so.
            """)

    @OptionGroup var serverOptions: ServerOptions

    @OptionGroup var geoClueOptions: GeoClueOptions

    @Option(parsing: .unconditional, help: "Seconds to wait for a qualifying fix.")
    var timeout: Double = 10

    @Option(parsing: .unconditional, help: "Accept a fix gpsd already holds if it is no more than this many seconds old (as gpsd's clock, trusted per --gpsd-clock, tells).")
    var maxAge: Double?

    @Option(help: ArgumentHelp("Whether gpsd's clock can tell how old the fix it holds is, for --max-age."))
    var gpsdClock: GPSDClockArgument = .auto

    @Option(parsing: .unconditional, help: "Seconds to wait for the rest of an epoch when a fix lacks the accuracy or altitude its mode gives (0: take the first report).")
    var epochWait: Double = 1

    @Option(help: "The least fix to accept.")
    var minMode: FixMode = .fix2D

    @Option(parsing: .unconditional, help: "The worst horizontal accuracy to accept, in metres.")
    var accuracy: Double?

    // Parsed with LocationFormat(parsing:), not init?(argument:), so that the error for a bad
    // template names the token that is not a field; the ExpressibleByArgument conformance still
    // lists the names in help (argumentType) and completes them. Help shows no default for a
    // parsing closure, so the abstract gives it.
    @Option(
        help: ArgumentHelp(
            "How to print the fix: a name below, or a template. (default: \(LocationFormat.text.defaultValueDescription))",
            discussion: """
                A template uses Location's JSON keys as tokens: \(LocationFormat.tokens.joined(separator: " ")); \
                %% is a percent sign, \\n and \\t a newline and a tab.
                """,
            argumentType: LocationFormat.self),
        completion: LocationFormat.defaultCompletionKind,
        transform: { try LocationFormat(parsing: $0) })
    var format: LocationFormat = .text

    @Option(help: "Answer from a replay of FILE (a gpsd JSON log, an NMEA log or a GPX track) instead of gpsd.", completion: .file())
    var simulate: String?

    @Flag(name: .shortAndLong, help: "Report connection changes (connecting, watching, reconnecting) on standard error.")
    var verbose = false

    /// What these options ask for, as plain values: what `run()` does, and what
    /// ``OnceRequest/init(quickParsing:)`` makes without ArgumentParser.
    var request: OnceRequest {
        OnceRequest(
            server: serverOptions.server, geoClue: geoClueOptions.geoclue ? geoClueOptions : nil, timeout: timeout,
            maxAge: maxAge, gpsdClock: gpsdClock, epochWait: epochWait, minMode: minMode, accuracy: accuracy,
            format: format, simulate: simulate, verbose: verbose)
    }

    func validate() throws {
        try request.validate()
        try geoClueOptions.validate(server: serverOptions.server, simulate: simulate)
    }

    func run() async throws {
        try await request.run()
    }
}

/// Remembers whether gpsd (or GeoClue) was lost and has not come back, to tell "lost" (69) from
/// "no fix" (75); says once on standard error that GeoClue awaits authorization.
final class ConnectionTracker: Sendable {
    private struct State {
        var lost: LocationError?
    }

    private let state = Locked(State())
    private let observation: Locked<LocationObservation?> = Locked(nil)

    /// Tracks `source`; with `reporting`, also prints each connection change, naming it so.
    init(_ source: any LocationSource, reporting name: String? = nil) {
        let observation = source.addObserver { [state] event in
            if let name, case let .connectionChanged(connection) = event {
                Output.error("locate once: \(name): \(connection)")
            }
            switch event {
            case let .error(error):
                switch error {
                case .connectionLost, .serviceLost: state.withLock { $0.lost = error }
                case .awaitingAuthorization: Output.error("locate once: \(error)")
                default: break
                }
            case .connectionChanged(.watching):
                state.withLock { $0.lost = nil }
            default:
                break
            }
        }
        self.observation.withLock { $0 = observation }
    }

    /// The loss, if gpsd (or GeoClue) went away and is not back.
    var lostAndNotBack: LocationError? {
        state.withLock { $0.lost }
    }
}
