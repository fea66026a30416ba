import ArgumentParser
import CommandSupport
import GPSCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocateOptions
import LocationFacade
import RegionMonitoring
import Simulators

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch regions (circles, GeoJSON polygons, corridors, lines) or an anchor; print each enter, exit, dwell, crossing or drag.",
        discussion: """
            Prints first the state of each region (event "state": inside, outside or unknown), then \
            one line per event: enter, exit, dwell, cross (a line, dated between the fixes either side, \
            with its direction), drag (the anchor) and unknown (no usable fix for --unknown-after \
            seconds; the no-fix alarm). A fix decides only when its error circle is clear of the edge: \
            inside when distance + accuracy < radius, outside when distance - accuracy > radius + \
            --hysteresis; a fix less accurate than --max-accuracy decides nothing, and a new state \
            needs --confirm fixes pointing to it.

            --region is ID=circle:LAT,LON,RADIUS, ID=polygon:FILE.geojson (a Polygon, MultiPolygon, \
            Feature or FeatureCollection), ID=corridor:FILE,HALFWIDTH (a GPX track or route, or a \
            GeoJSON LineString) or ID=line:LAT1,LON1,LAT2,LON2; give it as often as needed. A region \
            sets rules of its own after its values: ,dwell=S ,confirm=N ,hysteresis=M ,max-accuracy=M \
            (home=circle:51.5,-0.1,100,dwell=300,confirm=3). --anchor \
            watches an anchor: dropped at the first fix (or at --anchor-at, or --anchor-distance metres \
            at --anchor-bearing from the first fix), with a swing radius of --radius metres or of \
            √(rode² − depth²) + --margin from --rode and --depth; --anchor-status S prints the distance \
            and bearing to it every S seconds.

            With --state PATH, the regions' states are kept in PATH (0600, replaced atomically): \
            started again inside a region, it prints the region inside and no enter; a damaged file \
            is set aside as PATH.damaged and said on standard error.

            Exits \(ExitStatus.success.rawValue) at the end of a --simulate replay or on SIGINT or \
            SIGTERM, \(ExitStatus.usage.rawValue) on a malformed --region (naming it), \
            \(ExitStatus.noInput.rawValue) when a region's file cannot be opened, \
            \(ExitStatus.dataError.rawValue) when it is not valid GeoJSON or GPX (naming the file and \
            where), \(ExitStatus.unavailable.rawValue) when gpsd or GeoClue cannot be reached.

            \(ExitStatus.table)
            """)

    @OptionGroup var serverOptions: ServerOptions

    @OptionGroup var geoClueOptions: GeoClueOptions

    @Option(help: "Take the fixes from a replay of FILE (a gpsd JSON log, an NMEA log or a GPX track) instead of gpsd.", completion: .file())
    var simulate: String?

    @Option(parsing: .unconditional, help: "Play --simulate this many times faster than recorded.")
    var speed: Double = 1

    @Option(name: .customLong("region"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A region to watch: ID=circle:LAT,LON,RADIUS | ID=polygon:FILE.geojson | ID=corridor:FILE,HALFWIDTH | ID=line:LAT1,LON1,LAT2,LON2.",
        valueName: "region"))
    var regionTexts: [String] = []

    @Option(parsing: .unconditional, help: "Seconds inside a region before a dwell event (0: none; the anchor makes none).")
    var dwell: Double = 60

    @Option(parsing: .unconditional, help: "Consecutive fixes that must point to a new state before it is reported.")
    var confirm: Int = 2

    @Option(parsing: .unconditional, help: "Metres beyond the edge a fix's error circle must be to prove the device outside.")
    var hysteresis: Double = 5

    @Option(parsing: .unconditional, help: "A fix claiming a worse accuracy (metres) decides nothing.")
    var maxAccuracy: Double = 100

    @Option(parsing: .unconditional, help: "Seconds without a usable fix before every region is unknown (the no-fix alarm).")
    var unknownAfter: Double = 10

    @Option(help: "Keep the regions' states in this file across runs.", completion: .file())
    var state: String?

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Watch an anchor (region \"anchor\"): a drag event when the boat leaves its swing circle.")
    var anchor = false

    @Option(parsing: .unconditional, help: "The anchor's swing radius in metres.")
    var radius: Double?

    @Option(parsing: .unconditional, help: "Metres of rode out (with --depth).")
    var rode: Double?

    @Option(parsing: .unconditional, help: "Metres of depth from the bow roller to the bottom (with --rode).")
    var depth: Double?

    @Option(parsing: .unconditional, help: "Metres added to √(rode² − depth²).")
    var margin: Double = AnchorAlarm.defaultMargin

    @Option(parsing: .unconditional, help: ArgumentHelp("Where the anchor lies, instead of at the first fix.", valueName: "lat,lon"))
    var anchorAt: String?

    @Option(parsing: .unconditional, help: "The anchor's bearing in degrees from the first fix (with --anchor-distance).")
    var anchorBearing: Double = 0

    @Option(parsing: .unconditional, help: "The anchor's distance in metres from the first fix, at --anchor-bearing.")
    var anchorDistance: Double = 0

    @Option(parsing: .unconditional, help: "With --anchor, print the distance and bearing to the anchor every this many seconds of fixes (event \"status\"; 0: never).")
    var anchorStatus: Double = 0

    func validate() throws {
        for text in regionTexts { _ = try RegionArgument(parsing: text) }
        let identifiers = try regionTexts.map { try RegionArgument(parsing: $0).identifier } + (anchor ? ["anchor"] : [])
        if let duplicate = Dictionary(grouping: identifiers, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw ValidationError("--region: the identifier '\(duplicate)' is given twice (the anchor is 'anchor').")
        }
        guard !identifiers.isEmpty else { throw ValidationError("Give at least one --region, or --anchor.") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, not \(speed).") }
        guard dwell >= 0, dwell.isFinite else { throw ValidationError("--dwell must be zero or more seconds, not \(dwell).") }
        guard confirm >= 1 else { throw ValidationError("--confirm must be at least 1, not \(confirm).") }
        guard hysteresis >= 0, hysteresis.isFinite else { throw ValidationError("--hysteresis must be zero or more metres, not \(hysteresis).") }
        guard maxAccuracy > 0 else { throw ValidationError("--max-accuracy must be a positive number of metres, not \(maxAccuracy).") }
        guard unknownAfter > 0, unknownAfter.isFinite else { throw ValidationError("--unknown-after must be a positive number of seconds, not \(unknownAfter).") }
        if simulate != nil, serverOptions.server != nil {
            throw ValidationError("--simulate replays a file without gpsd: give either a server or --simulate, not both.")
        }
        try geoClueOptions.validate(server: serverOptions.server, simulate: simulate)
        if !anchor, radius != nil || rode != nil || depth != nil || anchorAt != nil || anchorDistance != 0 || anchorStatus != 0 {
            throw ValidationError("--radius, --rode, --depth, --anchor-at, --anchor-distance and --anchor-status are for the anchor: add --anchor.")
        }
        guard anchorStatus >= 0, anchorStatus.isFinite else { throw ValidationError("--anchor-status must be zero or more seconds, not \(anchorStatus).") }
        if anchor {
            switch (radius, rode, depth) {
            case let (radius?, nil, nil):
                guard radius > 0 else { throw ValidationError("--radius must be a positive number of metres, not \(radius).") }
            case let (nil, rode?, depth?):
                guard rode > 0, depth >= 0, rode > depth else { throw ValidationError("--rode must be longer than --depth, and both positive.") }
            default:
                throw ValidationError("--anchor needs either --radius, or --rode and --depth.")
            }
            if anchorAt != nil, anchorDistance != 0 { throw ValidationError("Give either --anchor-at or --anchor-distance, not both.") }
            _ = try anchorPosition()
        }
    }

    var swingRadius: Double {
        radius ?? AnchorAlarm.swingRadius(rode: rode ?? 0, depth: depth ?? 0, margin: margin)
    }

    func anchorPosition() throws(ValidationError) -> GeoCoordinate? {
        guard let anchorAt else { return nil }
        let parts = anchorAt.split(separator: ",").compactMap { Double($0) }
        guard parts.count == 2, GeoCoordinate(latitude: parts[0], longitude: parts[1]).isValid else {
            throw ValidationError("--anchor-at '\(anchorAt)': expected LAT,LON in degrees.")
        }
        return GeoCoordinate(latitude: parts[0], longitude: parts[1])
    }

    var rules: MonitoringRules {
        MonitoringRules(
            hysteresis: hysteresis, maximumAccuracy: maxAccuracy, confirmation: .fixes(confirm),
            dwell: dwell > 0 ? .milliseconds(Int64(dwell * 1000)) : nil, unknownAfter: .milliseconds(Int64(unknownAfter * 1000)))
    }

    func run() async throws {
        // Regions first: a bad file ends the command before any source is started.
        var conditions: [(String, RegionCondition, MonitoringRules?)] = []
        for text in regionTexts {
            let region = try RegionArgument(parsing: text)
            do {
                conditions.append((region.identifier, try region.condition(), region.rules(over: rules)))
            } catch {
                Output.error("locate monitor: \(error.message)")
                throw ExitCode(error.status)
            }
        }
        let monitor: RegionMonitor
        if let state {
            do {
                monitor = try RegionMonitor(rules: rules, stateFile: state)
            } catch {
                Output.error("locate monitor: \(error)")
                throw ExitCode(.noInput)
            }
            if case let .setAside(reason, movedTo) = monitor.restoration {
                Output.error("locate monitor: the state file \(state) is damaged (\(reason)); set aside as \(movedTo), starting without it.")
            }
        } else {
            monitor = RegionMonitor(rules: rules)
        }
        for (identifier, condition, regionRules) in conditions { monitor.add(condition, identifier: identifier, rules: regionRules) }
        var anchorAlarm: AnchorAlarm?
        if anchor {
            if let position = try anchorPosition() {
                anchorAlarm = try AnchorAlarm(anchor: position, swingRadius: swingRadius)
            } else if case let .anchor(circle)? = monitor.record(for: "anchor")?.condition, circle.radius == swingRadius {
                // Started again with the anchor down: it stays where it was dropped.
                anchorAlarm = try AnchorAlarm(anchor: circle.center, swingRadius: circle.radius)
            }
            // The monitor's rules, without a dwell: the library's rule for an anchor.
            if let anchorAlarm { monitor.add(anchorAlarm.condition, identifier: "anchor", assuming: .satisfied) }
        }
        let wanted = Set(conditions.map(\.0) + (anchor ? ["anchor"] : []))
        for identifier in monitor.identifiers where !wanted.contains(identifier) { monitor.remove(identifier) }

        let printer = MonitorPrinter(json: json)
        for identifier in conditions.map(\.0) + (anchor ? ["anchor"] : []) {
            printer.printState(identifier, monitor.record(for: identifier)?.state ?? .unknown, anchor: identifier == "anchor" ? anchorAlarm : nil)
        }
        let (source, replay, name) = try makeSource()
        let anchorState = Locked(anchorAlarm)
        // Observers are called in the order they were added: this one drops the anchor at the first
        // usable fix before the monitor sees it.
        let dropping = anchor && anchorAlarm == nil
        let (swingRadius, bearing, distance) = (swingRadius, anchorBearing, anchorDistance)
        let dropObservation = source.addObserver { event in
            guard dropping, case let .location(fix) = event, fix.mode != .noFix, fix.hasValidCoordinates else { return }
            let dropped: AnchorAlarm? = anchorState.withLock { alarm in
                guard alarm == nil else { return nil }
                alarm = try? AnchorAlarm(droppedAt: fix, bearing: bearing, distance: distance, swingRadius: swingRadius)  // cannot fail: validate() checked the radius, the guard the fix
                return alarm
            }
            if let dropped {
                monitor.add(dropped.condition, identifier: "anchor", assuming: .satisfied)
                printer.printDropped(dropped, at: fix)
            }
        }
        // The live distance and bearing to the anchor, every --anchor-status seconds of fix time.
        let statusEvery = anchorStatus
        let lastStatus = Locked<Date?>(nil)
        let statusObservation = source.addObserver { event in
            guard statusEvery > 0, case let .location(fix) = event, fix.mode != .noFix, fix.hasValidCoordinates,
                let alarm = anchorState.withLock({ $0 })
            else { return }
            let time = fix.time ?? fix.receivedAt
            let due = lastStatus.withLock { last in
                guard last.map({ time.timeIntervalSince($0) >= statusEvery }) ?? true else { return false }
                last = time
                return true
            }
            if due { printer.printStatus(alarm, at: fix) }
        }
        let printing = Task {
            for await event in monitor.events {
                printer.print(event, anchor: event.identifier == "anchor" ? anchorState.withLock { $0 } : nil)
            }
        }
        let failure = FirstFailure()
        let errors = source.addObserver { event in
            guard case let .error(error) = event else { return }
            switch error {
            case .unreachable, .serviceUnavailable, .notAuthorized:
                failure.set(error)
            default:
                Output.error("locate monitor: \(name): \(error)")
            }
        }
        let interrupts = Interrupts()
        // A live source is watched for silence on this machine's clock. A replay's silences are in
        // its fixes' times (a gap is said at the next fix, a stretch without a fix as its no-fix
        // reports come): watched on the clock, the moment between its last fix and its end being
        // noticed would be silence too, and a loaded machine would say "unknown" at the end of some
        // runs and not of others.
        let following: RegionMonitor.Following?
        let replayObservation: LocationObservation?
        if let replay {
            following = nil
            replayObservation = replay.addObserver { event in
                switch event {
                case let .location(fix): monitor.process(fix)
                case let .noFix(_, time?): monitor.check(at: time)
                default: break
                }
            }
            replay.start()
        } else {
            following = monitor.follow(source)
            replayObservation = nil
        }
        let (endings, ending) = AsyncStream.makeStream(of: LocationError?.self)
        let waiters: [Task<Void, Never>] = [
            Task {
                if let replay { await replay.waitUntilFinished() } else { await Task.never() }
                ending.yield(nil)
            },
            Task {
                await interrupts.wait()
                ending.yield(nil)
            },
            Task {
                ending.yield(await failure.wait())
            },
        ]
        var outcome: LocationError?
        for await end in endings {
            outcome = end
            break
        }
        waiters.forEach { $0.cancel() }
        following?.cancel()
        replayObservation?.cancel()
        source.stop()
        dropObservation.cancel()
        statusObservation.cancel()
        errors.cancel()
        monitor.finish()
        await printing.value
        printer.drain()
        for failure in monitor.takeSaveFailures() { Output.error("locate monitor: \(failure)") }
        if let readError = replay?.readError {
            Output.error("locate monitor: \(readError)")
            throw ExitCode(.dataError)
        }
        if let outcome {
            Output.error("locate monitor: \(outcome)")
            throw ExitCode(outcome.exitStatus)
        }
    }

    private func makeSource() throws -> (any LocationSource, ReplayLocationSource?, String) {
        try CommandSource.make(command: "monitor", server: serverOptions, geoClue: geoClueOptions, simulate: simulate, speed: speed)
    }
}

/// The source a command of `locate` follows: GeoClue, a replay of a file, or gpsd.
enum CommandSource {
    /// The source, the replay when it is one (its end ends the command), and its name for messages.
    static func make(
        command: String, server: ServerOptions, geoClue: GeoClueOptions, simulate: String?, speed: Double
    ) throws -> (any LocationSource, ReplayLocationSource?, String) {
        if geoClue.geoclue {
            return (geoClue.source(accuracy: nil), nil, geoClue.name)
        }
        if let simulate {
            guard FileManager.default.isReadableFile(atPath: simulate) else {
                Output.error("locate \(command): cannot read \(simulate): no such readable file.")
                throw ExitCode(.noInput)
            }
            do {
                let replay = try ReplayRecording(contentsOf: URL(fileURLWithPath: simulate)).device(speed: speed)
                return (replay, replay, simulate)
            } catch {
                Output.error("locate \(command): \(error)")
                throw ExitCode(.dataError)
            }
        }
        let address = try server.address()
        return (GPSDClient(host: address.host, port: address.port, device: address.device), nil, address.description)
    }
}

extension Task where Success == Never, Failure == Never {
    /// Waits until the task is cancelled.
    static func never() async {
        let (stream, _) = AsyncStream.makeStream(of: Void.self)
        for await _ in stream {}
    }
}

/// The first error that ends the command, awaited once.
final class FirstFailure: Sendable {
    private let state = Locked<(error: LocationError?, waiter: CheckedContinuation<LocationError?, Never>?)>((nil, nil))

    func set(_ error: LocationError) {
        let waiter = state.withLock { state -> CheckedContinuation<LocationError?, Never>? in
            guard state.error == nil else { return nil }
            state.error = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: error)
    }

    func wait() async -> LocationError? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> LocationError? in
                    if let error = state.error { return error }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
