#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationCore

extension RegionMonitor {
    /// A monitor following a source: stop it with ``cancel()`` (or by releasing it).
    public final class Following: Sendable {
        private let observation: LocationObservation
        private let watchdog: Task<Void, Never>
        private let source: any LocationSource

        init(observation: LocationObservation, watchdog: Task<Void, Never>, source: any LocationSource) {
            self.observation = observation
            self.watchdog = watchdog
            self.source = source
        }

        /// Stops following: no more fixes are taken, and the source is stopped.
        public func cancel() {
            observation.cancel()
            watchdog.cancel()
            source.stop()
        }

        deinit {
            cancel()
        }
    }

    /// The fixes' time as the watchdog tells it: the latest fix's time plus the time since it came.
    private struct Timeline: Sendable {
        var fixDate: Date?
        var cameAt: Duration = .zero
        /// When the watchdog last looked, so that it sleeps a whole period again after saying unknown.
        var checkedAt: Duration = .zero
    }

    /// Takes every fix `source` reports (and starts it), and with no fix for
    /// ``MonitoringRules/unknownAfter`` says every area unknown, on `clock`: the time then is the
    /// last fix's plus the time gone by since it came, `rate` seconds of fix time per second of
    /// `clock` (a replay played 10 times as fast: 10). Before the first fix the time is `now()`'s.
    ///
    /// ```swift
    /// let following = monitor.follow(GPSDClient())
    /// defer { following.cancel() }
    /// ```
    public func follow(
        _ source: any LocationSource, clock: some Clock<Duration> = ContinuousClock(), rate: Double = 1,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> Following {
        follow(source, clock: ElapsedClock(clock), rate: rate, now: now)
    }

    /// Takes every fix of `manager`'s source, shared with the manager's other consumers (a
    /// `LocationPublisher`, streams, requests: `LocationManager.sharedSource()`), and keeps it
    /// running while it follows; the no-fix watchdog keeps time by the manager's clock (on a
    /// `VirtualClock`, paced with it). Otherwise as ``follow(_:clock:rate:now:)``.
    public func follow(_ manager: LocationManager, rate: Double = 1, now: @escaping @Sendable () -> Date = { Date() }) -> Following {
        follow(manager.sharedSource(), clock: manager.clock, rate: rate, now: now)
    }

    private func follow(_ source: any LocationSource, clock: ElapsedClock, rate: Double, now: @escaping @Sendable () -> Date) -> Following {
        precondition(rate > 0 && rate.isFinite, "RegionMonitor.follow: the rate must be a positive number, not \(rate)")
        let start = clock.now
        let elapsed: @Sendable () -> Duration = { clock.now - start }
        let timeline = Locked(Timeline())
        let observation = source.addObserver { [weak self] event in
            switch event {
            case let .location(fix):
                let cameAt = elapsed()
                timeline.withLock { timeline in
                    timeline.fixDate = fix.time ?? fix.receivedAt
                    timeline.cameAt = cameAt
                }
                self?.process(fix)
            case let .noFix(_, time?):
                self?.check(at: time)
            default:
                break
            }
        }
        let period = rules.unknownAfter / rate
        let startDate = now()
        // A paced task: on a `VirtualClock` an advance returns only after the watchdog has looked,
        // so the unknown it says is there every run (a plain task was missed in 3 runs of 490).
        let watchdog = clock.pacedTask { [weak self] clock in
            while !Task.isCancelled {
                let deadline = timeline.withLock { max($0.cameAt, $0.checkedAt) } + period
                do {
                    try await clock.sleep(until: start + deadline)
                } catch {
                    return
                }
                // Dated by the deadline, not by when this task ran: the same date on every run.
                let date = timeline.withLock { timeline -> Date? in
                    guard deadline >= timeline.cameAt + period else { return nil }  // a fix came meanwhile
                    timeline.checkedAt = deadline
                    guard let fixDate = timeline.fixDate else { return startDate.addingTimeInterval(deadline.seconds * rate) }
                    return fixDate.addingTimeInterval((deadline - timeline.cameAt).seconds * rate)
                }
                guard let self else { return }
                if let date { self.check(at: date) }
            }
        }
        source.start()
        return Following(observation: observation, watchdog: watchdog, source: source)
    }
}

extension LocationManager {
    /// A region monitor following this manager's source, shared with its other consumers (a
    /// `LocationPublisher`, streams, requests): `CLMonitor`'s place beside `CLLocationManager`. It
    /// follows until ``RegionMonitor/finish()`` or its release, with the no-fix watchdog on the
    /// manager's clock; `rate` and the first date are as ``RegionMonitor/follow(_:rate:now:)``'s.
    ///
    /// ```swift
    /// let manager = LocationManager(source: GPSDClient())
    /// let monitor = manager.monitor()
    /// try monitor.add(.circle(center: GeoCoordinate(latitude: 51.4779, longitude: -0.0015), radius: 100), identifier: "observatory")
    /// for await event in monitor.events { print(event.identifier, event.kind) }
    /// ```
    public func monitor(rules: MonitoringRules = MonitoringRules(), rate: Double = 1, now: @escaping @Sendable () -> Date = { Date() }) -> RegionMonitor {
        attach(RegionMonitor(rules: rules), rate: rate, now: now)
    }

    /// A region monitor keeping its regions in `stateFile` (see ``RegionMonitor/init(rules:stateFile:)``),
    /// following this manager's source as ``monitor(rules:rate:now:)``'s does.
    public func monitor(
        rules: MonitoringRules = MonitoringRules(), stateFile: String, rate: Double = 1, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(RegionStateFile.Failure) -> RegionMonitor {
        attach(try RegionMonitor(rules: rules, stateFile: stateFile), rate: rate, now: now)
    }

    private func attach(_ monitor: RegionMonitor, rate: Double, now: @escaping @Sendable () -> Date) -> RegionMonitor {
        let following = monitor.follow(self, rate: rate, now: now)
        monitor.attachment.withLock { $0 = following }
        return monitor
    }
}
