import ArgumentParser
import CommandSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocateOptions
import LocationFacade
import LocationPublisher
import Logging
import RegionMonitoring
import Simulators

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate publish",
        abstract: PublishSummary.abstract,
        discussion: """
            Takes fixes from gpsd, or from --simulate FILE (a GPX track, a gpsd JSON log or an NMEA log) \
            at --speed, or from GeoClue with --geoclue, and sends each one that passes --interval and \
            --min-distance to --to: an MQTT broker (mqtt://, mqtts://; QoS 1 on owntracks/USER/DEVICE) \
            or an HTTP server (http://, https://; OwnTracks' HTTP mode with X-Limit-U and X-Limit-D, or \
            Traccar's OsmAnd protocol with the device as its id). Each position is written to the outbox \
            (--outbox, by default $XDG_STATE_HOME/swift-gps-facade/outbox.sqlite) before it is sent and \
            removed when the broker acknowledges it or the server answers 2xx. \
            A broker or server that cannot be reached, at the start or later, is not an error: positions \
            are queued, a line on standard error says so, and another when delivery works again; it is \
            tried again after --reconnect's MIN seconds, doubling to its MAX (1-60 by default). After an \
            outage the newest position goes first (a map shows where the device is now), then the backlog \
            in time order. When the source ends (the end of --simulate's recording, SIGINT, SIGTERM) what \
            is queued is sent for up to --drain-timeout seconds; a second SIGINT or SIGTERM stops at once. \
            What is left stays in the outbox, and the next run sends it first. \
            With --region (as often as needed, in locate monitor's syntax: \(RegionArgument.forms)), \
            each enter and exit of a region goes through the same outbox: OwnTracks' _type transition \
            (event enter or leave, desc the region's id, wtst the time this run started) on \
            owntracks/USER/DEVICE/event, or over HTTP to the same endpoint; Home Assistant's zone state \
            (the region's id on an enter, None on an exit); nothing for osmand. \
            The password (for the broker's or the server's login, whose user is the URL's, else --user) \
            comes from --password-file or the environment variable \(PublishTarget.passwordVariable), \
            never from the command line: a password in --to is refused. \
            On a terminal a status line shows what is queued and when a position was last sent. With \
            --json, a last line {"queued":N,"sent":N,"pending":N,"dropped":N}: positions queued by this \
            run, delivered by it, left in the outbox, and dropped (the outbox full, or refused by the server). \
            Under systemd (Type=notify) it sends READY=1 once publishing, and WATCHDOG=1 when the unit \
            sets WatchdogSec=. \
            Exits \(ExitStatus.success.rawValue) when everything was delivered; \
            \(ExitStatus.usage.rawValue) for a malformed --to, a password in it, a --format its scheme \
            cannot carry (homeassistant needs MQTT, osmand HTTP), or a --reconnect that is not MIN-MAX; \
            \(ExitStatus.dataError.rawValue) when --simulate's file is not a recording; \
            \(ExitStatus.noInput.rawValue) when --simulate's file, --password-file or --ca-file cannot be read; \
            \(ExitStatus.unavailable.rawValue) when gpsd (or GeoClue) cannot be reached; \
            \(ExitStatus.cannotCreate.rawValue) when the outbox cannot be opened (a file that is not an \
            outbox is left untouched); \
            \(ExitStatus.temporaryFailure.rawValue) when positions are still queued at the end; \
            \(ExitStatus.noPermission.rawValue) when the broker or server refuses the login (what is \
            queued is kept).
            """)

    @OptionGroup var serverOptions: ServerOptions

    @Option(help: "Publish a replay of FILE (GPX, gpsd JSON or NMEA) instead of gpsd's fixes.", completion: .file())
    var simulate: String?

    @Option(parsing: .unconditional, help: "Play the --simulate recording this many times faster than it was recorded.")
    var speed: Double = 1

    @OptionGroup var geoClueOptions: GeoClueOptions

    @Option(help: ArgumentHelp(
        "Where to send: mqtt://[user@]host[:port], mqtts://..., http(s)://[user@]host[:port]/path.",
        discussion: "MQTT's ports are 1883 and 8883 by default. No password here: see --password-file.",
        valueName: "url"))
    var to: String

    @Option(help: "What to send: owntracks (MQTT or HTTP), osmand (Traccar, HTTP), homeassistant (MQTT discovery).")
    var format: PublishFormat = .owntracks

    @Option(help: ArgumentHelp("The OwnTracks user: the topic is owntracks/USER/DEVICE, and HTTP's X-Limit-U.", valueName: "name"))
    var user: String

    @Option(help: ArgumentHelp("The device: the topic's last level, HTTP's X-Limit-D, OsmAnd's id.", valueName: "name"))
    var device: String

    @Option(help: ArgumentHelp("OwnTracks' tracker id, two characters shown on the map (default: the device's last two letters or digits).", valueName: "XX"))
    var tid: String?

    @Option(help: ArgumentHelp("The outbox file (default: $XDG_STATE_HOME/swift-gps-facade/outbox.sqlite).", valueName: "path"), completion: .file())
    var outbox: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Publish at most one position per this many seconds (of the fixes' time).", valueName: "seconds"))
    var interval: Double = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Publish a fix only when it moved this far from the last one published.", valueName: "metres"))
    var minDistance: Double = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("At the end, how long to go on sending what is queued.", valueName: "seconds"))
    var drainTimeout: Double = 30

    @Option(name: .customLong("reconnect"), parsing: .unconditional, help: ArgumentHelp(
        "Seconds between tries to reach the broker or server after a failure: from MIN, doubling, to at most MAX.",
        discussion: "Give \(ReconnectBounds.form). Both the MQTT client's reconnection and the wait before sending again keep to them.",
        valueName: "min-max"))
    var reconnectText = "1-60"

    @Option(help: ArgumentHelp(
        "A file whose first line is the login's password.",
        discussion: "Else the environment variable \(PublishTarget.passwordVariable); the login's user is --to's, else --user.",
        valueName: "file"), completion: .file())
    var passwordFile: String?

    @Option(help: ArgumentHelp("The certificate authorities to trust for mqtts:// or https:// (PEM), instead of the system's.", valueName: "file"), completion: .file())
    var caFile: String?

    @Flag(help: "End with one JSON line: {\"queued\":N,\"sent\":N,\"pending\":N,\"dropped\":N}.")
    var json = false

    @Option(name: .customLong("region"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A region whose enters and exits are published: ID=circle:LAT,LON,RADIUS | ID=polygon:FILE.geojson | ID=corridor:FILE,HALFWIDTH | ID=line:LAT1,LON1,LAT2,LON2.",
        valueName: "region"))
    var regionTexts: [String] = []

    func validate() throws {
        let target = try PublishTarget(parsing: to)
        try format.check(target.scheme)
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, not \(speed).") }
        if simulate != nil, serverOptions.server != nil {
            throw ValidationError("--simulate publishes a recording without gpsd: give either a server or --simulate, not both.")
        }
        if simulate == nil, speed != 1 { throw ValidationError("--speed is for --simulate: gpsd has a pace of its own.") }
        try geoClueOptions.validate(server: serverOptions.server, simulate: simulate)
        for (name, value) in [("--user", user), ("--device", device)] {
            if value.isEmpty || value.contains("/") || value.contains("+") || value.contains("#") {
                throw ValidationError("\(name) names one level of the topic owntracks/USER/DEVICE: not empty, without '/', '+' or '#' ('\(value)').")
            }
        }
        if let tid, tid.isEmpty || tid.count > 2 {
            throw ValidationError("--tid is one or two characters (OwnTracks shows it on the map), not '\(tid)'.")
        }
        guard interval >= 0, interval.isFinite else { throw ValidationError("--interval must be zero or more seconds, not \(interval).") }
        guard minDistance >= 0, minDistance.isFinite else { throw ValidationError("--min-distance must be zero or more metres, not \(minDistance).") }
        guard drainTimeout >= 0, drainTimeout.isFinite else {
            throw ValidationError("--drain-timeout must be zero or more seconds, not \(drainTimeout).")
        }
        if caFile != nil, !target.scheme.isTLS { throw ValidationError("--ca-file is for TLS: give an mqtts:// or https:// --to.") }
        let identifiers = try regionTexts.map { try RegionArgument(parsing: $0).identifier }
        if let duplicate = Dictionary(grouping: identifiers, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw ValidationError("--region: the identifier '\(duplicate)' is given twice.")
        }
        _ = try ReconnectBounds(parsing: reconnectText)
    }

    /// --reconnect, read (``validate()`` refused what does not read).
    var reconnect: ReconnectBounds {
        (try? ReconnectBounds(parsing: reconnectText)) ?? .standard  // validate() refused what does not read
    }

    func run() async throws {
        let target = try PublishTarget(parsing: to)
        let login = try readLogin(target)
        // Said here, for both schemes, as the file it is: libmosquitto's own words were "Invalid
        // function arguments provided", and libcurl's came only at the first connection.
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            Output.error("locate publish: cannot read the CA file \(caFile).")
            throw ExitCode(.noInput)
        }
        // Regions first: a bad file ends the command before anything is opened or started.
        let regions = try loadRegions()
        let destination = try makeDestination(target, login: login)
        let outbox = try openOutbox()
        let (source, sourceName) = try makeSource()
        let interrupts = Interrupts()
        var filter = PublishFilter()
        filter.minimumInterval = .milliseconds(Int64((interval * 1000).rounded()))
        filter.minimumDistance = minDistance
        // The session says on standard error what the publisher's warnings say (a destination
        // that cannot be reached, and when it works again), once and in the command's words.
        var logger = Logger(label: "swift-gps-facade.publisher")
        logger.logLevel = .error
        // Read before the publisher is made: with --region the monitor starts the source at once,
        // and the first fixes are queued before the session runs.
        let pendingAtStart = (try? outbox.count(for: destination.name)) ?? 0  // unreadable: the publisher's status says why
        let publisher: LocationPublisher
        var transitions: Task<Void, Never>?
        let configuration = LocationPublisher.Configuration(filter: filter, backoff: reconnect.backoff)
        if regions.isEmpty {
            publisher = LocationPublisher(source: source, outbox: outbox, destinations: [destination], configuration: configuration, logger: logger)
        } else {
            // One source, two listeners: the publisher and the monitor share the manager's source.
            let manager = LocationManager(source: source)
            publisher = LocationPublisher(manager: manager, outbox: outbox, destinations: [destination], configuration: configuration, logger: logger)
            transitions = publishTransitions(of: regions, from: manager, to: publisher)
        }
        defer { transitions?.cancel() }
        let session = PublishSession(
            publisher: publisher, source: source, sourceName: sourceName, interrupts: interrupts,
            drainTimeout: .milliseconds(Int64((drainTimeout * 1000).rounded())),
            pending: { [name = destination.name] in (try? outbox.count(for: name)) ?? 0 })  // unreadable: the status says why
        let outcome = await session.run()
        // A clean disconnect: the broker does not publish the last will for a planned stop.
        if let broker = destination as? MQTTDestination { await broker.close() }
        // What waits for this destination: the publisher's status counts the whole outbox, which
        // may also hold positions for another --to of an earlier run (sent when that one is used).
        let pending = (try? outbox.count(for: destination.name)) ?? outcome.status.queued  // unreadable: the publisher's count
        if json {
            let status = outcome.status
            let queued = max(0, pending + status.sent + status.dropped + status.rejected - pendingAtStart)
            Output.line(#"{"queued":\#(queued),"sent":\#(status.sent),"pending":\#(pending),"dropped":\#(status.dropped + status.rejected)}"#)
        }
        switch outcome.ending {
        case .finished where pending == 0: return
        case .finished:
            Output.error("locate publish: \(pending) position\(pending == 1 ? " is" : "s are") still queued, kept in the outbox: the next run sends \(pending == 1 ? "it" : "them") first.")
            throw ExitCode(.temporaryFailure)
        case .refused: throw ExitCode(.noPermission)
        case .sourceUnavailable(let error): throw ExitCode(error.exitStatus)
        }
    }

    /// The login for the broker or server: the URL's user (else --user) and the password from
    /// --password-file or the environment; `nil` when there is neither user nor password.
    private func readLogin(_ target: PublishTarget) throws -> HTTPLogin? {
        var password: String?
        if let passwordFile {
            guard let data = FileManager.default.contents(atPath: passwordFile) else {
                Output.error("locate publish: cannot read the password file \(passwordFile).")
                throw ExitCode(.noInput)
            }
            let text = String(decoding: data, as: UTF8.self)
            password = String(text.prefix { $0 != "\n" && $0 != "\r" })
        } else if let variable = ProcessInfo.processInfo.environment[PublishTarget.passwordVariable] {
            password = variable
        }
        guard password != nil || target.user != nil else { return nil }
        return HTTPLogin(user: target.user ?? user, password: password ?? "")
    }

    private func makeDestination(_ target: PublishTarget, login: HTTPLogin?) throws -> any PublishDestination {
        if target.scheme.isMQTT {
            return try mqttDestination(target, login: login)
        }
        let httpFormat: HTTPDestination.Format = format == .osmand
            ? .osmAnd(deviceID: device)
            : .ownTracks(user: user, device: device, trackerID: trackerID)
        return HTTPDestination(url: target.url, format: httpFormat, login: login, tls: HTTPTLSFiles(caFile: caFile))
    }

    /// --tid, else the device's last two letters or digits (``OwnTracksPayload/defaultTrackerID(forDevice:)``).
    var trackerID: String {
        tid ?? OwnTracksPayload.defaultTrackerID(forDevice: device)
    }

    /// The regions of --region, their files read: 66 when one cannot be opened, 65 when one is
    /// not what it should be (as `locate monitor`).
    private func loadRegions() throws -> [(String, RegionCondition, MonitoringRules?)] {
        try regionTexts.map { text in
            let region = try RegionArgument(parsing: text)
            do {
                return (region.identifier, try region.condition(), region.rules(over: MonitoringRules()))
            } catch let error as RegionArgument.FileFailure {
                Output.error("locate publish: \(error.message)")
                throw ExitCode(error.status)
            }
        }
    }

    /// Follows `manager` with a monitor of `regions` and queues each enter and exit as a
    /// transition, until cancelled. `wtst` (the regions' time of making) is this run's start.
    private func publishTransitions(
        of regions: [(String, RegionCondition, MonitoringRules?)], from manager: LocationManager, to publisher: LocationPublisher
    ) -> Task<Void, Never> {
        let monitor = RegionMonitor()
        for (identifier, condition, rules) in regions { monitor.add(condition, identifier: identifier, rules: rules) }
        let following = monitor.follow(manager)
        let defined = Date()
        return Task {
            await withTaskCancellationHandler {
                for await event in monitor.events {
                    guard let location = event.location else { continue }
                    let kind: RegionTransition.Event
                    switch event.kind {
                    case .enter: kind = .enter
                    case .exit: kind = .leave
                    case .dwell, .cross, .drag, .unknown: continue
                    }
                    publisher.publish(RegionTransition(event: kind, region: event.identifier, regionCreatedAt: defined), at: location, time: event.date)
                }
            } onCancel: {
                following.cancel()
                monitor.finish()
            }
        }
    }

    private func openOutbox() throws -> Outbox {
        do {
            if let outbox { return try Outbox(path: outbox) }
            return try Outbox()
        } catch {
            Output.error("locate publish: \(error).")
            throw ExitCode(.cannotCreate)
        }
    }

    /// The source of the fixes, and its name for the lines that say it was lost and is back.
    private func makeSource() throws -> (any LocationSource, String) {
        if geoClueOptions.geoclue {
            return (geoClueOptions.source(accuracy: nil), geoClueOptions.name)
        }
        if let simulate {
            guard FileManager.default.isReadableFile(atPath: simulate) else {
                Output.error("locate publish: cannot read \(simulate): no such readable file.")
                throw ExitCode(.noInput)
            }
            do {
                return (try ReplayRecording(contentsOf: URL(fileURLWithPath: simulate)).device(speed: speed), simulate)
            } catch {
                Output.error("locate publish: \(error)")
                throw ExitCode(.dataError)
            }
        }
        let address = try serverOptions.address()
        return (GPSDClient(host: address.host, port: address.port, device: address.device), "gpsd at \(address)")
    }
}
