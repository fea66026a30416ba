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
import LocationFacade
import LocationPublisher
import Simulators

/// One run of `locate publish`: the publisher until its source ends (or a signal, or the login is
/// refused), then the drain; the lines on standard error and the status line on the way.
final class PublishSession: Sendable {
    /// How the run ended.
    enum Ending: Sendable {
        /// The source ended and the drain is over (whether all was delivered, the outbox says).
        case finished
        /// The broker or server refused the login.
        case refused
        /// gpsd or GeoClue could not be reached before a fix came.
        case sourceUnavailable(LocationError)
    }

    /// Why the publishing phase stopped.
    fileprivate enum Stop: Sendable {
        case sourceEnded, interrupted, refused
        case sourceUnavailable(LocationError)
    }

    /// Where stopping stands, for the signals and refusals that come: publishing (the first
    /// signal ends it), or draining (the next one ends the drain at once).
    private enum Phase: Sendable {
        case publishing
        /// Publishing has stopped and the drain is about to start; a signal now is counted, and
        /// ends the drain as soon as it starts.
        case stopping(signalsSince: Int)
        case draining(Task<PublisherStatus, Never>)
        case done
    }

    private let publisher: LocationPublisher
    private let source: any LocationSource
    /// The source as the lines name it: "gpsd at 127.0.0.1:2947".
    private let sourceName: String
    private let interrupts: Interrupts
    private let drainTimeout: Duration
    private let report: PublishReport

    /// `pending` counts the positions that wait for this run's destination.
    init(
        publisher: LocationPublisher, source: any LocationSource, sourceName: String, interrupts: Interrupts, drainTimeout: Duration,
        pending: @escaping @Sendable () -> Int
    ) {
        self.publisher = publisher
        self.source = source
        self.sourceName = sourceName
        self.interrupts = interrupts
        self.drainTimeout = drainTimeout
        report = PublishReport(statusLine: isatty(STDERR_FILENO) == 1, pending: pending)
    }

    func run() async -> (ending: Ending, status: PublisherStatus) {
        let (stops, stop) = AsyncStream.makeStream(of: Stop.self)
        let phase = Locked(Phase.publishing)
        let refused = Locked(false)
        // gpsd or GeoClue that cannot be reached before it was watched (or a fix came) ends the
        // run, as `locate watch`. Lost later, it is said once, and again when it is back: the
        // source reconnects, and what was queued meanwhile is in the outbox.
        let sourceLink = Locked(SourceLink.notYet)
        let sawFix = Locked(false)
        let sourceName = sourceName
        let observation = source.addObserver { [report] event in
            switch event {
            case .location:
                sawFix.withLock { $0 = true }
                sourceLink.withLock { if case .notYet = $0 { $0 = .up } }
            case .connectionChanged(.watching):
                let back = sourceLink.withLock { link in
                    defer { link = .up }
                    return link == .lost
                }
                if back { report.say("locate publish: \(sourceName) is back; publishing its fixes again.") }
            case let .error(error):
                switch error {
                case .unreachable, .serviceUnavailable:
                    if sourceLink.withLock({ $0 == .notYet }) { stop.yield(.sourceUnavailable(error)) }
                case .notAuthorized:
                    // GeoClue's refusal is final; once fixes came, the run sends what it has.
                    if !sawFix.withLock({ $0 }) { stop.yield(.sourceUnavailable(error)) }
                case .connectionLost, .serviceLost:
                    let first = sourceLink.withLock { link in
                        defer { link = .lost }
                        return link != .lost
                    }
                    // GeoClue's loss already says that it connects again when it is back.
                    let after = if case .serviceLost = error { "" } else { " Reconnecting; publishing resumes when it is back." }
                    if first { report.say("locate publish: \(error)\(after)") }
                default:
                    break
                }
            default:
                break
            }
        }
        defer { observation.cancel() }
        let statusWatcher = Task { [report, publisher] in
            for await status in publisher.statusUpdates() {
                report.show(status)
                if case .refusedCredentials = status.lastError {
                    refused.withLock { $0 = true }
                    stop.yield(.refused)
                    let draining: Task<PublisherStatus, Never>? = phase.withLock { phase in
                        if case let .draining(task) = phase { return task }
                        return nil
                    }
                    draining?.cancel()
                }
            }
        }
        let replayEnded = (source as? ReplayLocationSource).map { replay in
            Task {
                await replay.waitUntilFinished()
                if replay.hasPlayedToEnd { stop.yield(.sourceEnded) }
            }
        }
        let signals = Task { [interrupts] in
            while !Task.isCancelled {
                await interrupts.wait()
                if Task.isCancelled { return }
                let draining: Task<PublisherStatus, Never>? = phase.withLock { phase in
                    switch phase {
                    case .publishing:
                        phase = .stopping(signalsSince: 0)
                        stop.yield(.interrupted)
                        return nil
                    case let .stopping(signals):
                        phase = .stopping(signalsSince: signals + 1)
                        return nil
                    case let .draining(task):
                        return task
                    case .done:
                        return nil
                    }
                }
                draining?.cancel()
            }
        }
        let watchdog = SystemdNotify.watchdogInterval().map { interval in
            Task {
                while !Task.isCancelled {
                    SystemdNotify.send("WATCHDOG=1")
                    try? await Task.sleep(for: interval)  // cancelled: the loop ends
                }
            }
        }
        defer {
            statusWatcher.cancel()
            replayEnded?.cancel()
            signals.cancel()
            watchdog?.cancel()
        }
        let running = Task { await publisher.run() }
        SystemdNotify.send("READY=1")
        var reason = Stop.interrupted
        for await first in stops {
            reason = first
            break
        }
        // From here a signal is counted (.stopping) until the drain can be cancelled by it.
        phase.withLock { phase in
            if case .publishing = phase { phase = .stopping(signalsSince: 0) }
        }
        report.clear()
        switch reason {
        case .refused:
            // The login will not work until the configuration changes: what is queued stays.
            phase.withLock { $0 = .done }
            running.cancel()
            await running.value
            let status = publisher.status
            report.refused(status)
            return (.refused, status)
        case let .sourceUnavailable(error):
            phase.withLock { $0 = .done }
            running.cancel()
            await running.value
            Output.error("locate publish: \(error)")
            return (.sourceUnavailable(error), publisher.status)
        case .sourceEnded, .interrupted:
            break
        }
        SystemdNotify.send("STOPPING=1")
        report.draining(because: reason.sentence, timeout: drainTimeout)
        let draining = Task { [publisher, drainTimeout] in await publisher.drain(timeout: drainTimeout) }
        let signalledMeanwhile = phase.withLock { phase in
            defer { phase = .draining(draining) }
            if case let .stopping(signals) = phase { return signals > 0 }
            return false
        }
        if signalledMeanwhile || refused.withLock({ $0 }) { draining.cancel() }
        let status = await draining.value
        phase.withLock { $0 = .done }
        running.cancel()
        await running.value
        report.clear()
        if refused.withLock({ $0 }) {
            report.refused(status)
            return (.refused, status)
        }
        return (.finished, status)
    }
}

/// Where the source stands, for the lines that say it was lost and is back.
private enum SourceLink: Sendable, Equatable {
    /// Not watched yet, and no fix: unreachable now ends the run.
    case notYet
    /// Watched, or a fix came.
    case up
    /// Lost after it was up (said once); reconnecting.
    case lost
}

extension PublishSession.Stop {
    /// What to tell the user about why sending stopped.
    var sentence: String {
        switch self {
        case .sourceEnded: "the recording ended"
        case .interrupted: "interrupted"
        case .refused: "the login was refused"
        case .sourceUnavailable: "the source is unavailable"
        }
    }
}
