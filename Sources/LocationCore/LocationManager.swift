import Dispatch
import GPSCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// One-shot and continuous locations from any ``LocationSource``, with `async`/`await`, in the
/// manner of `CLLocationManager.requestLocation()` and `CLLocationUpdate.liveUpdates()`.
///
/// ```swift
/// let manager = LocationManager(source: GPSDClient(host: "127.0.0.1", port: 2947))
/// let fix = try await manager.requestLocation(timeout: .seconds(10))
/// print(fix.latitude, fix.longitude)
///
/// for try await location in manager.updates() {   // continuous; ends when the task is cancelled
///     print(location)
/// }
/// ```
///
/// The manager drives its source: it starts it when the first request or stream begins, and stops
/// it a grace period after the last one ends (``Configuration/sourceGracePeriod``, 5 s), so that
/// one fix followed by a stream keeps one connection to gpsd and loses no fix in between. Don't
/// start or stop a source you have handed to a manager: give its other consumers (a publisher, a
/// region monitor, a workout session) ``sharedSource()``, and the manager starts it once for all.
///
/// Time comes from the injected clock: timeouts, the grace period, the wait for a whole epoch,
/// the freshness of fixes. A fix's age is measured from when it was received, never from its GPS
/// time (a receiver's clock and a replay's dates are not this machine's). Tests pass a
/// `TestClock` or the `Simulators` module's `VirtualClock` and step it.
public final class LocationManager: Sendable {
    /// What the manager gets its locations from.
    public let source: any LocationSource
    /// The manager's timings.
    public let configuration: Configuration

    package let clock: ElapsedClock
    let logger: Logger
    let state = ObservedState(ManagerState())
    /// How long a one-shot waits for the rest of an epoch: ``Configuration/epochWait`` for a source
    /// that reports epochs in parts, else nothing.
    let epochWait: Duration

    /// Creates a manager over `source`, timing everything on `clock`.
    public init(
        source: any LocationSource,
        clock: some Clock<Duration> = ContinuousClock(),
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "LocationFacade.LocationManager")
    ) {
        self.source = source
        self.clock = ElapsedClock(clock)
        self.configuration = configuration
        self.epochWait = source.reportsEpochsInParts ? configuration.epochWait : .zero
        self.logger = logger
        let observation = source.addObserver { [weak self] event in
            self?.handle(event)
        }
        state.withLock { state in
            state.observation = observation
            state.motion = Motion(rule: configuration.stationaryRule)
        }
    }

    deinit {
        let (streams, wasRunning, timers) = state.withLock { state in
            defer {
                state.streams.removeAll()
                state.observation = nil
            }
            var timers = state.streams.values.compactMap(\.availabilityTimer)
            let (started, graceTimer) = state.source.shutDown()
            if let graceTimer { timers.append(graceTimer) }
            return (state.streams.values.map(\.sink), started, timers)
        }
        for timer in timers { timer.cancel() }
        for stream in streams { stream.finish(throwing: LocationError.cancelled) }
        if wasRunning { source.stop() }
    }

    /// The newest fix the manager has received, or `nil`; like `CLLocationManager.location`.
    public var latestLocation: Location? {
        state.withLock { $0.latest?.location }
    }

    /// Returns one fix: the first received after the call that has at least `minimumMode` and, if
    /// given, a horizontal accuracy of `desiredAccuracy` metres or better, once its epoch is whole.
    ///
    /// - Whole epochs, from a source that reports them in parts (``LocationSource/reportsEpochsInParts``:
    ///   gpsd): a fix that meets the criteria and carries what its mode gives (a horizontal
    ///   accuracy; in 3D an altitude and a vertical accuracy too: ``Location/isComplete``) returns
    ///   at once. One that lacks some (gpsd's first report of an epoch, made before the epoch's
    ///   GGA and GSA sentences have come) is held while the request waits, up to
    ///   ``Configuration/epochWait`` (1 s) after it came, for a later report of the same time; the
    ///   request returns the newest of them when one is complete, when the receiver's next epoch
    ///   begins, when it reports the fix lost, or when the wait ends, and never times out holding
    ///   one. From any other source, the first fix that meets the criteria.
    /// - `minimumMode` and CoreLocation: CoreLocation has no fix mode; it hands over the first
    ///   position it has and marks an altitude it lacks with a negative `verticalAccuracy`. The
    ///   default here, ``FixMode/fix2D``, is that habit: any position (a 2D fix has no altitude,
    ///   `nil`). Ask ``FixMode/fix3D`` when you need the altitude; you need not ask it to get an
    ///   accuracy, as the wait for a whole epoch gives the accuracy a 2D fix has.
    /// - `maximumAge`: a fix already at hand is returned at once if it meets the criteria and is
    ///   no older than `maximumAge`: the manager's latest, or the source's (gpsd's answer to
    ///   `?POLL;`, whose age gpsd's clock gives only when it keeps true time: see
    ///   ``LocationEvent/cachedLocation(_:age:)``). A fix older than `maximumAge`, or whose age
    ///   cannot be told, is never returned as one at hand: the request waits for a new one. The
    ///   fix's ``Location/receivedAt`` says when it came, and ``Location/age(at:)`` how old it is.
    ///
    /// - Throws: ``LocationError/timedOut(after:best:lastError:)`` at the deadline, carrying the best fix seen
    ///   (most accurate, then newest) if any — a fix arriving at the very instant of the deadline is
    ///   too late; ``LocationError/unreachable(host:port:reason:)`` at once if the source cannot
    ///   connect at all (once it has connected, it keeps trying until the deadline, through gpsd
    ///   restarts); `CancellationError` promptly when the task is cancelled, even before the request
    ///   reached the source.
    public func requestLocation(
        timeout: Duration,
        maximumAge: Duration? = nil,
        minimumMode: FixMode = .fix2D,
        desiredAccuracy: Double? = nil
    ) async throws -> Location {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let criteria = Criteria(minimumMode: minimumMode, desiredAccuracy: desiredAccuracy)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                register(id, continuation, criteria: criteria, timeout: timeout, maximumAge: maximumAge)
            }
        } onCancel: {
            complete(id, with: .failure(CancellationError()))
        }
    }

    /// A stream of fixes with at least `minimumMode` and, if given, a horizontal accuracy of
    /// `desiredAccuracy` metres or better (as ``requestLocation(timeout:maximumAge:minimumMode:desiredAccuracy:)``
    /// filters them), each at least `distanceFilter` metres from the last one it delivered (every
    /// fix when `nil`). Each report is delivered as it comes, whole epoch or not.
    ///
    /// The stream runs until the consuming task is cancelled (or the stream is dropped); it ends
    /// with an error only if the source cannot connect at all. By default (`buffering` `nil`) a
    /// slow consumer gets the newest fix on a real clock, not a growing backlog, and every fix on
    /// a virtual clock, so that a replay gives the same fixes every run (see ``UpdateBuffering``).
    /// It yields ``Location``s, as it always has;
    /// ``liveUpdates(minimumMode:desiredAccuracy:distanceFilter:buffering:)`` is the same stream
    /// in CoreLocation's shape, which also says when no usable fix comes.
    public func updates(
        minimumMode: FixMode = .fix2D,
        desiredAccuracy: Double? = nil,
        distanceFilter: Double? = nil,
        buffering: UpdateBuffering? = nil
    ) -> AsyncThrowingStream<Location, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Location.self, bufferingPolicy: bufferingPolicy(buffering, for: Location.self))
        let criteria = Criteria(minimumMode: minimumMode, desiredAccuracy: desiredAccuracy)
        let id = addStream(.locations(continuation), criteria: criteria, distanceFilter: distanceFilter)
        continuation.onTermination = { [weak self] _ in
            self?.removeStream(id)
        }
        return stream
    }

    /// The stream of ``updates(minimumMode:desiredAccuracy:distanceFilter:buffering:)`` in the
    /// shape of CoreLocation's `CLLocationUpdate.liveUpdates()`: each element a ``LocationUpdate``
    /// with the fix, or, after ``Configuration/unavailableAfter`` (10 s) without a fix that meets
    /// the criteria, one update without a location whose ``LocationUpdate/locationUnavailable``
    /// is true (said once, until a usable fix comes again).
    ///
    /// ```swift
    /// for try await update in manager.liveUpdates(minimumMode: .fix3D) {
    ///     guard let location = update.location else { continue }   // locationUnavailable
    ///     print(location.altitude ?? .nan)
    /// }
    /// ```
    public func liveUpdates(
        minimumMode: FixMode = .fix2D,
        desiredAccuracy: Double? = nil,
        distanceFilter: Double? = nil,
        buffering: UpdateBuffering? = nil
    ) -> AsyncThrowingStream<LocationUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: LocationUpdate.self, bufferingPolicy: bufferingPolicy(buffering, for: LocationUpdate.self))
        let criteria = Criteria(minimumMode: minimumMode, desiredAccuracy: desiredAccuracy)
        let id = addStream(.updates(continuation), criteria: criteria, distanceFilter: distanceFilter)
        continuation.onTermination = { [weak self] _ in
            self?.removeStream(id)
        }
        return stream
    }

    private func bufferingPolicy<Element>(
        _ buffering: UpdateBuffering?, for element: Element.Type
    ) -> AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy {
        switch buffering {
        case nil: clock.pacesTasks ? .unbounded : .bufferingNewest(1)
        case let .newest(count): .bufferingNewest(max(1, count))
        case .all: .unbounded
        }
    }
}
