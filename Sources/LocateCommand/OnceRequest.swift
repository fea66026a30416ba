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

/// What `locate once` is asked for, as plain values: made from ``Once``'s parsed options, or by
/// ``init(quickParsing:)`` without ArgumentParser (see Once+QuickParsing.swift).
struct OnceRequest {
    var server: String?
    /// The GeoClue options, when --geoclue is given.
    var geoClue: GeoClueOptions?
    var timeout: Double = 10
    var maxAge: Double?
    var gpsdClock: GPSDClockArgument = .auto
    var epochWait: Double = 1
    var minMode: FixMode = .fix2D
    var accuracy: Double?
    var format: LocationFormat = .text
    var simulate: String?
    var verbose = false

    /// Refuses values out of range, and a server with --simulate (GeoClue's options are checked
    /// by ``GeoClueOptions/validate(server:simulate:)``).
    func validate() throws(ValidationError) {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds, not \(timeout).") }
        if let maxAge, !(maxAge >= 0 && maxAge.isFinite) { throw ValidationError("--max-age must be zero or more seconds, not \(maxAge).") }
        guard epochWait >= 0, epochWait.isFinite else { throw ValidationError("--epoch-wait must be zero or more seconds, not \(epochWait).") }
        if let accuracy, !(accuracy > 0 && accuracy.isFinite) { throw ValidationError("--accuracy must be a positive number of metres, not \(accuracy).") }
        if simulate != nil, server != nil {
            throw ValidationError("--simulate answers without gpsd: give either a server or --simulate, not both.")
        }
    }

    func run() async throws {
        let (source, client) = try makeSource()
        let name = geoClue?.name ?? server ?? simulate ?? ""
        let tracker = ConnectionTracker(source, reporting: verbose ? name : nil)
        let manager = LocationManager(source: source, configuration: .init(epochWait: .milliseconds(Int64(epochWait * 1000))))
        let (timeout, maxAge, minMode, accuracy) = (timeout, maxAge, minMode, accuracy)
        let request = Task {
            try await manager.requestLocation(
                timeout: .milliseconds(Int64(timeout * 1000)),
                maximumAge: maxAge.map { .milliseconds(Int64($0 * 1000)) },
                minimumMode: minMode,
                desiredAccuracy: accuracy)
        }
        // A replay that has played to its end (or to a part it cannot read) will give no fix:
        // waiting out the timeout for one would only make the user wait.
        let replay = source as? ReplayLocationSource
        let replayEnded = replay.map { replay in
            Task {
                await replay.waitUntilFinished()
                if replay.hasPlayedToEnd { request.cancel() }
            }
        }
        defer { replayEnded?.cancel() }
        do {
            let fix = try await request.value
            Output.line(format.render(fix))
        } catch is CancellationError {
            if let readError = replay?.readError {
                Output.error("locate once: \(readError)")
                throw ExitCode(.dataError)
            }
            Output.error("locate once: the recording \(simulate ?? "") ended without a fix that qualifies.")
            throw ExitCode(.temporaryFailure)
        } catch let error as LocationError {
            if case .timedOut = error, client != nil || geoClue != nil, let lost = tracker.lostAndNotBack {
                Output.error("locate once: \(lost) It did not come back within \(LocationError.format(.milliseconds(Int64(timeout * 1000)))).")
                throw ExitCode(.unavailable)
            }
            Output.error("locate once: \(error)")
            throw ExitCode(error.exitStatus)
        }
    }

    private func makeSource() throws -> (any LocationSource, GPSDClient?) {
        if let geoClue {
            return (geoClue.source(accuracy: accuracy), nil)
        }
        if let simulate {
            let url = URL(fileURLWithPath: simulate)
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                Output.error("locate once: cannot read \(simulate): no such readable file.")
                throw ExitCode(.noInput)
            }
            do {
                return (try ReplayRecording(contentsOf: url).device(), nil)
            } catch {
                Output.error("locate once: \(error)")
                throw ExitCode(.dataError)
            }
        }
        let address = try ServerOptions.address(of: server)
        // Within the request's time, so that a connect that never completes, or a peer that
        // never says a word, is named before the request gives up.
        let half = Duration.milliseconds(Int64(timeout * 500))
        var configuration = GPSDClient.Configuration(hostClock: gpsdClock.hostClock)
        configuration.connectTimeout = min(configuration.connectTimeout, half)
        configuration.silenceLimit = min(configuration.silenceLimit, half)
        let client = GPSDClient(host: address.host, port: address.port, device: address.device, configuration: configuration)
        return (client, client)
    }
}
