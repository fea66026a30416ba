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

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each fix gpsd reports, one line per fix.",
        discussion: """
            Each fix is printed as gpsd reports it, as gpspipe shows it: while gpsd has not learnt a \
            receiver's cycle (when it has just opened it), one second's fix comes in several reports, \
            each printed (locate once waits for the whole of it). \
            Exits \(ExitStatus.success.rawValue) once --count fixes are printed, and \
            \(ExitStatus.unavailable.rawValue) when gpsd cannot be reached, or is lost and does not come \
            back within --reconnect-for seconds. With --geoclue, the fixes come from GeoClue instead: \
            \(ExitStatus.unavailable.rawValue) when GeoClue (or the bus) is not there or does not come back, \
            \(ExitStatus.noPermission.rawValue) when it refuses this program.
            """)

    @OptionGroup var serverOptions: ServerOptions

    @OptionGroup var geoClueOptions: GeoClueOptions

    @Option(parsing: .unconditional, help: "Exit after this many fixes.")
    var count: Int?

    @Flag(help: "Print one JSON object per fix (NDJSON), with the keys of Location's JSON form.")
    var json = false

    @Option(parsing: .unconditional, help: "After losing gpsd, how many seconds to keep reconnecting before giving up.")
    var reconnectFor: Double = 10

    @Flag(name: .shortAndLong, help: "Report connection changes (connecting, watching, reconnecting) on standard error.")
    var verbose = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count).") }
        guard reconnectFor >= 0, reconnectFor.isFinite else {
            throw ValidationError("--reconnect-for must be zero or more seconds, not \(reconnectFor).")
        }
        try geoClueOptions.validate(server: serverOptions.server)
    }

    func run() async throws {
        let source: any LocationSource
        let name: String
        if geoClueOptions.geoclue {
            source = geoClueOptions.source(accuracy: nil)
            name = geoClueOptions.name
        } else {
            let address = try serverOptions.address()
            source = GPSDClient(host: address.host, port: address.port, device: address.device)
            name = address.description
        }
        let session = WatchSession(count: count, json: json, reconnectFor: .milliseconds(Int64(reconnectFor * 1000)), verbose: verbose, name: name)
        let outcome = await session.run(source)
        if case let .failed(error) = outcome {
            Output.error("locate watch: \(error)")
            throw ExitCode(error.exitStatus)
        }
    }
}

/// Prints fixes as they arrive until the count is reached or the source is gone for good.
final class WatchSession: Sendable {
    enum Outcome: Sendable {
        case countReached
        case failed(LocationError)
    }

    private struct State {
        var printed = 0
        var finished = false
        var hasWatched = false
        var lostSince: UInt64?
        var lossCount: UInt64 = 0
        var continuation: CheckedContinuation<Outcome, Never>?
    }

    private let count: Int?
    private let json: Bool
    private let reconnectFor: Duration
    private let verbose: Bool
    /// The source, as messages name it.
    private let name: String
    private let state = Locked(State())
    private let output = LineWriter()

    init(count: Int?, json: Bool, reconnectFor: Duration, verbose: Bool, name: String) {
        self.count = count
        self.json = json
        self.reconnectFor = reconnectFor
        self.verbose = verbose
        self.name = name
    }

    func run(_ source: any LocationSource) async -> Outcome {
        let observation = source.addObserver { [self] event in handle(event) }
        let outcome = await withCheckedContinuation { continuation in
            state.withLock { $0.continuation = continuation }
            source.start()
        }
        source.stop()
        observation.cancel()
        output.drain()
        return outcome
    }

    private func handle(_ event: LocationEvent) {
        switch event {
        case let .location(location):
            print(location)
        case let .connectionChanged(connection):
            if connection == .watching {
                state.withLock { state in
                    state.hasWatched = true
                    state.lostSince = nil
                }
            }
            if verbose { Output.error("locate watch: \(name): \(connection)") }
        case let .error(error):
            handle(error)
        default:
            break
        }
    }

    private func print(_ location: Location) {
        let done: Bool = state.withLock { state in
            guard !state.finished else { return false }
            output.append { buffer in
                if json {
                    location.appendJSON(to: &buffer)
                } else {
                    buffer.append(contentsOf: location.description.utf8)
                }
                buffer.append(UInt8(ascii: "\n"))
            }
            state.printed += 1
            return state.printed == count
        }
        if done { finish(.countReached) }
    }

    private func handle(_ error: LocationError) {
        switch error {
        case .unreachable, .serviceUnavailable:
            // Before the first watch, gpsd (or GeoClue) is simply not there; later, the loss timer decides.
            if !state.withLock({ $0.hasWatched }) { finish(.failed(error)) }
        case .notAuthorized:
            finish(.failed(error))
        case .connectionLost, .serviceLost:
            let loss: UInt64? = state.withLock { state in
                guard state.lostSince == nil else { return nil }
                state.lossCount += 1
                state.lostSince = state.lossCount
                return state.lossCount
            }
            guard let loss else { return }
            if reconnectFor == .zero {
                finish(.failed(error))
                return
            }
            Output.error("locate watch: \(error) Reconnecting for up to \(LocationError.format(reconnectFor)).")
            Task { [self, reconnectFor] in
                try? await Task.sleep(for: reconnectFor)  // cancellation only, and this task is not cancelled
                if state.withLock({ $0.lostSince == loss }) {
                    finish(.failed(error))
                }
            }
        default:
            Output.error("locate watch: \(error)")
        }
    }

    private func finish(_ outcome: Outcome) {
        let continuation = state.withLock { state in
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }
}
