#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The reader thread of one ``GPSDClient`` run (from `start()` to `stop()`): connects with a
/// timeout, watches, reads and decodes, and reconnects with backoff.
///
/// The client talks to it only through `requestStop()` and `requestPoll()`, which set flags and
/// signal the eventfd the thread waits on beside gpsd's socket.
final class GPSDReader: Sendable {
    private weak let client: GPSDClient?
    private let generation: UInt64
    private let host: String
    private let port: UInt16
    private let device: String?
    private let configuration: GPSDClient.Configuration
    private let logger: Logger
    private let clock: ElapsedClock
    private let wake = WakeSignal()
    private let stopRequested = Locked(false)
    private let pollRequested = Locked(false)

    init(client: GPSDClient, generation: UInt64) {
        self.client = client
        self.generation = generation
        self.host = client.host
        self.port = client.port
        self.device = client.device
        self.configuration = client.configuration
        self.logger = client.logger
        self.clock = client.clock
    }

    func launch() {
        Threads.detach { [self] in run() }
    }

    func requestStop() {
        stopRequested.withLock { $0 = true }
        wake.signal()
    }

    func requestPoll() {
        pollRequested.withLock { $0 = true }
        wake.signal()
    }

    private var shouldStop: Bool {
        stopRequested.withLock { $0 } || client == nil
    }

    private func emit(_ event: LocationEvent) {
        client?.deliver(event, generation: generation)
    }

    // MARK: - The thread

    private func run() {
        defer { client?.readerFinished(generation: generation) }
        var attempt = 0
        while !shouldStop {
            attempt += 1
            // Deadlines are taken before the state is announced: whoever watches the state and then
            // moves a test clock past the deadline finds it already set.
            let connectDeadline = clock.now + configuration.connectTimeout
            emit(.connectionChanged(.connecting(attempt: attempt)))
            switch connect(until: connectDeadline) {
            case .stopped:
                return
            case let .failed(error):
                logger.debug("gpsd connect failed", metadata: ["error": "\(error)"])
                emit(.error(error))
            case let .connected(connection):
                let outcome = serve(connection)
                connection.close()
                guard case let .lost(error, spokeGPSD) = outcome else { return }
                // A peer that spoke gpsd's protocol was gpsd: back to the first, short delay. One
                // that did not (a web server, a wrong port) is retried with the growing delays
                // of a failed connect, not every 250 ms for ever.
                if spokeGPSD { attempt = 0 }
                logger.debug("gpsd connection lost", metadata: ["error": "\(error)"])
                emit(.error(error))
            }
            let delay = configuration.delay(beforeAttempt: max(1, attempt))
            guard !shouldStop else { return }
            let reconnectAt = clock.now + delay
            emit(.connectionChanged(.waitingToReconnect(after: delay, attempt: attempt + 1)))
            if waitForStop(until: reconnectAt) { return }
        }
    }

    /// Returns true if stop was requested before `deadline` (on the client's clock).
    private func waitForStop(until deadline: Duration) -> Bool {
        while !shouldStop {
            if clock.now >= deadline { return false }
            if wake.wait(until: deadline, on: clock).woken { wake.drain() }
        }
        return true
    }

    private enum ConnectOutcome {
        case connected(LibGPSConnection)
        case failed(LocationError)
        case stopped
    }

    /// Runs libgps's blocking `gps_open` on a helper thread and waits for it no longer than the
    /// connect timeout (or until stopped). A connect that finishes after we gave up is closed there.
    private func connect(until deadline: Duration) -> ConnectOutcome {
        let attempt = ConnectAttempt()
        let (host, port, wake) = (self.host, self.port, self.wake)
        Threads.detach {
            attempt.finish(with: LibGPSConnection.open(host: host, port: port))
            wake.signal()
        }
        while true {
            if let result = attempt.result {
                switch result {
                case let .success(connection): return .connected(connection)
                case let .failure(error): return .failed(error)
                }
            }
            if shouldStop {
                attempt.abandon()
                return .stopped
            }
            if clock.now >= deadline {
                attempt.abandon()
                let timeout = LocationError.format(configuration.connectTimeout)
                return .failed(.unreachable(host: host, port: port, reason: "the TCP connect did not complete within \(timeout)"))
            }
            if wake.wait(until: deadline, on: clock).woken { wake.drain() }
        }
    }

    private enum ServeOutcome {
        case stopped
        /// The connection ended; `spokeGPSD` says whether the peer sent any gpsd report.
        case lost(LocationError, spokeGPSD: Bool)
    }

    /// What a connection has brought so far.
    private struct Exchange {
        var receivedAnything = false
        var spokeGPSD = false
        var firstMalformed: String?
        var warnedOfSilence = false
    }

    /// Watches and reads until the connection ends or stop is requested. A peer that has sent
    /// nothing at all by ``GPSDClient/Configuration/silenceLimit`` (gpsd greets every client at
    /// once) is reported, once, as ``LocationError/silent(host:port:after:)``.
    private func serve(_ connection: LibGPSConnection) -> ServeOutcome {
        // The silence counts from the connection as it is announced: a clock moved as soon as the
        // announcement comes (a test's) is not lost to a deadline taken after it.
        let silenceDeadline = clock.now + configuration.silenceLimit
        emit(.connectionChanged(.connected))
        var exchange = Exchange()
        guard connection.watch(device: device) else {
            return .lost(.connectionLost(host: host, port: port, reason: "sending the WATCH request failed"), spokeGPSD: false)
        }
        var messagesSinceStopCheck = 0
        while true {
            if shouldStop {
                connection.unwatch()
                return .stopped
            }
            if pollRequested.withLock({ requested in defer { requested = false }; return requested }) {
                guard connection.send("?POLL;\n") else {
                    return .lost(.connectionLost(host: host, port: port, reason: "sending ?POLL; failed"), spokeGPSD: exchange.spokeGPSD)
                }
            }
            let watchingForSilence = !exchange.receivedAnything && !exchange.warnedOfSilence
            let readiness = wake.wait(for: connection.fileDescriptor, until: watchingForSilence ? silenceDeadline : nil, on: clock)
            if readiness.woken { wake.drain() }
            if watchingForSilence, !readiness.socketReadable, !readiness.socketFailed, clock.now >= silenceDeadline {
                exchange.warnedOfSilence = true
                emit(.error(.silent(host: host, port: port, after: configuration.silenceLimit)))
            }
            guard readiness.socketReadable || readiness.socketFailed else { continue }
            let receivedAt = Date()
            reading: while true {
                switch connection.read(receivedAt: receivedAt) {
                case let .message(message, excerpt):
                    exchange.receivedAnything = true
                    if case .malformed = message {
                        if exchange.firstMalformed == nil, let excerpt, !excerpt.isEmpty { exchange.firstMalformed = excerpt }
                    } else {
                        exchange.spokeGPSD = true
                    }
                    handle(message, excerpt: excerpt)
                    messagesSinceStopCheck += 1
                    if messagesSinceStopCheck >= 256 {
                        messagesSinceStopCheck = 0
                        if shouldStop { break reading }
                    }
                case .wouldBlock:
                    break reading
                case let .closed(reason, malformed):
                    if let malformed {
                        exchange.receivedAnything = true
                        exchange.firstMalformed = exchange.firstMalformed ?? malformed
                        emit(.error(.malformedData(excerpt: malformed, reason: "unreadable line")))
                    }
                    return .lost(.connectionLost(host: host, port: port, reason: Self.lossReason(reason, exchange)), spokeGPSD: exchange.spokeGPSD)
                }
            }
        }
    }

    /// Why a connection ended, saying so when the peer never spoke gpsd's protocol.
    private static func lossReason(_ reason: String, _ exchange: Exchange) -> String {
        guard !exchange.spokeGPSD else { return reason }
        if let excerpt = exchange.firstMalformed {
            return "\(reason) without sending any gpsd report; it is not gpsd (it sent \"\(excerpt)\")"
        }
        return "\(reason) without sending anything"
    }

    private func handle(_ message: GPSDMessage, excerpt: String?) {
        switch message {
        case let .fix(location):
            emit(.location(location))
        case let .noFix(device, time):
            emit(.noFix(device: device, time: time))
        case let .sky(report):
            emit(.satellites(report))
        case let .devices(devices):
            emit(.devices(devices))
        case let .device(device):
            var devices = client?.devices ?? []
            if let index = devices.firstIndex(where: { $0.path == device.path }) {
                devices[index] = device
            } else {
                devices.append(device)
            }
            emit(.devices(devices))
        case let .version(release):
            client?.recordServerVersion(release, generation: generation)
        case let .watch(enabled):
            if enabled { emit(.connectionChanged(.watching)) }
        case let .poll(fixes, answeredAt):
            let trusted = configuration.hostClock.trusts(host: host) { KernelClock.isSynchronized() }
            for var fix in fixes {
                // The fix came when gpsd got it: the answer's reading less its age, not the answer's.
                let age = GPSDClient.age(of: fix, answeredAt: answeredAt, trusted: trusted)
                fix.receivedAt = age.map { fix.receivedAt - Self.seconds($0) } ?? fix.time ?? Date(timeIntervalSince1970: 0)
                emit(.cachedLocation(fix, age: age))
            }
        case let .error(message):
            emit(.error(.serverError(message: message)))
        case .ignored:
            break
        case let .malformed(reason):
            emit(.error(.malformedData(excerpt: excerpt ?? "", reason: reason)))
        }
    }
}

extension GPSDReader {
    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}

/// One `gps_open` running on a helper thread, which the reader may stop waiting for.
private final class ConnectAttempt: Sendable {
    private enum State {
        case pending
        case finished(Result<LibGPSConnection, LocationError>)
        case abandoned
    }

    private let state = Locked(State.pending)

    /// The outcome, once the helper finished (and the reader has not abandoned it).
    var result: Result<LibGPSConnection, LocationError>? {
        state.withLock { state in
            if case let .finished(result) = state { return result }
            return nil
        }
    }

    /// Called by the helper thread. If the reader gave up, a late connection is closed here.
    func finish(with result: Result<LibGPSConnection, LocationError>) {
        let abandoned = state.withLock { state -> Bool in
            if case .abandoned = state { return true }
            state = .finished(result)
            return false
        }
        if abandoned, case let .success(connection) = result {
            connection.close()
        }
    }

    /// Called by the reader when it stops waiting. A connection that finished just now is closed.
    func abandon() {
        let late: LibGPSConnection? = state.withLock { state in
            defer { state = .abandoned }
            if case let .finished(.success(connection)) = state { return connection }
            return nil
        }
        late?.close()
    }
}
