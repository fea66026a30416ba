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
/// it when none is left (gpsd then stops streaming to us), as CoreLocation stops after
/// `requestLocation`. Don't start or stop a source you have handed to a manager.
///
/// Time comes from the injected clock: timeouts, and the freshness of cached fixes, which is
/// measured from when the fix was received (never from the fix's GPS time: replayed logs carry
/// old dates). Tests pass a `TestClock` and step it.
public final class LocationManager: Sendable {
    /// What the manager gets its locations from.
    public let source: any LocationSource

    let clock: ElapsedClock
    let logger: Logger
    let state = Locked(ManagerState())

    /// How a stream from ``updates(minimumMode:distanceFilter:buffering:)`` treats a consumer that
    /// reads more slowly than fixes arrive.
    public enum UpdateBuffering: Sendable, Hashable {
        /// Keep only the newest `count` fixes not yet read (CoreLocation's behaviour); older ones are dropped.
        case newest(Int)
        /// Keep every fix: a slow consumer reads them all, later. For replays and tests.
        case all
    }

    /// Creates a manager over `source`, timing everything on `clock`.
    public init(
        source: any LocationSource,
        clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "LocationFacade.LocationManager")
    ) {
        self.source = source
        self.clock = ElapsedClock(clock)
        self.logger = logger
        let observation = source.addObserver { [weak self] event in
            self?.handle(event)
        }
        state.withLock { $0.observation = observation }
    }

    deinit {
        let (streams, wasRunning) = state.withLock { state in
            defer {
                state.streams.removeAll()
                state.observation = nil
            }
            return (state.streams.values.map(\.continuation), state.sourceWanted)
        }
        for stream in streams { stream.finish(throwing: LocationError.cancelled) }
        if wasRunning { source.stop() }
    }

    /// The newest fix the manager has received, or `nil`; like `CLLocationManager.location`.
    public var latestLocation: Location? {
        state.withLock { $0.latest?.location }
    }

    /// Returns one fix: the first received after the call that has at least `minimumMode` and, if
    /// given, a horizontal accuracy of `desiredAccuracy` metres or better.
    ///
    /// With `maximumAge`, a fix the manager or the source already has (gpsd's `?POLL;`) is returned
    /// at once if it meets the criteria and was received no longer ago than `maximumAge`.
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

    /// A stream of fixes with at least `minimumMode`, each at least `distanceFilter` metres from
    /// the last one it delivered (every fix when `nil`).
    ///
    /// The stream runs until the consuming task is cancelled (or the stream is dropped); it ends
    /// with an error only if the source cannot connect at all. A slow consumer gets the newest
    /// fixes, not a growing backlog, unless `buffering` is ``UpdateBuffering/all``.
    public func updates(
        minimumMode: FixMode = .fix2D,
        distanceFilter: Double? = nil,
        buffering: UpdateBuffering = .newest(1)
    ) -> AsyncThrowingStream<Location, any Error> {
        let policy: AsyncThrowingStream<Location, any Error>.Continuation.BufferingPolicy
        switch buffering {
        case let .newest(count): policy = .bufferingNewest(max(1, count))
        case .all: policy = .unbounded
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Location.self, bufferingPolicy: policy)
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.removeStream(id)
        }
        state.withLock { state in
            state.streams[id] = StreamWaiter(
                continuation: continuation,
                criteria: Criteria(minimumMode: minimumMode, desiredAccuracy: nil),
                distanceFilter: distanceFilter)
            updateSource(&state)
        }
        performSourceActions()
        logger.debug("location stream started", metadata: ["request.id": "\(id)"])
        return stream
    }
}
