extension LocationManager {
    /// The manager's timings: how long it keeps its source after the last request, how long a
    /// one-shot waits for the rest of an epoch, and when a live update says no location is coming.
    /// All three are on the manager's clock, so a test steps them with a test clock.
    ///
    /// ```swift
    /// let manager = LocationManager(
    ///     source: GPSDClient(host: "127.0.0.1", port: 2947),
    ///     configuration: .init(sourceGracePeriod: .seconds(30)))   // a request every 20 s keeps gpsd streaming
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// How long the source keeps running after the last request ends and the last stream is
        /// dropped: 5 s by default. A ``LocationManager/requestLocation(timeout:maximumAge:minimumMode:desiredAccuracy:)``
        /// followed by ``LocationManager/updates(minimumMode:desiredAccuracy:distanceFilter:buffering:)``
        /// (CoreLocation's "one fix, then follow") then keeps one connection, and a request made
        /// meanwhile with a `maximumAge` is answered from the fixes that kept coming. Zero stops
        /// the source the moment no one waits.
        public var sourceGracePeriod: Duration

        /// How long a one-shot request waits, after a fix that meets its criteria but lacks the
        /// measurements its mode gives (``Location/isComplete``), for a later report of the same
        /// epoch, from a source that reports epochs in parts (``LocationSource/reportsEpochsInParts``:
        /// gpsd, and replays of its logs): 1 s by default, the period of a 1 Hz receiver.
        ///
        /// gpsd sends no end-of-epoch marker; until it has learnt a receiver's last sentence of an
        /// epoch (at the start, and for receivers it cannot learn), it reports the epoch after each
        /// sentence: a 2D fix without accuracy from the RMC, then the altitude after the GGA and the
        /// accuracies after the GSA, a few hundred milliseconds later at 4800 baud. The wait ends
        /// sooner when a complete fix comes, or the receiver's next epoch (the request then takes
        /// the last report of the one it held), and never after the request's deadline. Zero takes
        /// the first report that meets the criteria, as `gpspipe` and a plain libgps client do.
        public var epochWait: Duration

        /// How long a stream of ``LocationManager/liveUpdates(minimumMode:desiredAccuracy:distanceFilter:buffering:)``
        /// goes without a usable fix (one that meets its criteria) before it says so with an update
        /// whose ``LocationUpdate/locationUnavailable`` is true: 10 s by default, counted from the
        /// stream's start or its last usable fix. It says so once until a usable fix comes again.
        public var unavailableAfter: Duration

        /// When the device counts as standing still, for ``LocationUpdate/isStationary``: below
        /// 0.5 m/s for 10 s by default (``MotionRule/standingStill``). A vehicle at a red light is
        /// stationary after 10 s; a walker, set `MotionRule(speedThreshold: 0.3, idleTime: .seconds(20))`.
        public var stationaryRule: MotionRule

        /// Creates a configuration. Each duration must not be negative, and `unavailableAfter`
        /// must be positive (a precondition: these are a program's constants).
        public init(
            sourceGracePeriod: Duration = .seconds(5),
            epochWait: Duration = .seconds(1),
            unavailableAfter: Duration = .seconds(10),
            stationaryRule: MotionRule = .standingStill
        ) {
            precondition(sourceGracePeriod >= .zero, "LocationManager: the source grace period must not be negative, not \(sourceGracePeriod)")
            precondition(epochWait >= .zero, "LocationManager: the epoch wait must not be negative, not \(epochWait)")
            precondition(unavailableAfter > .zero, "LocationManager: unavailableAfter must be positive, not \(unavailableAfter)")
            self.sourceGracePeriod = sourceGracePeriod
            self.epochWait = epochWait
            self.unavailableAfter = unavailableAfter
            self.stationaryRule = stationaryRule
        }
    }

    /// How a stream of ``LocationManager/updates(minimumMode:desiredAccuracy:distanceFilter:buffering:)``
    /// or ``LocationManager/liveUpdates(minimumMode:desiredAccuracy:distanceFilter:buffering:)``
    /// treats a consumer that reads more slowly than fixes arrive.
    ///
    /// By default (`buffering: nil`) a stream keeps the ``newest(_:)`` fix on any clock but a
    /// `VirtualClock` (the replay clock of the `Simulators` module), where it keeps ``all``. On a
    /// real clock a consumer slower than the receiver should see where the device is now, not
    /// fall behind (CoreLocation's habit). On a virtual clock a replay runs as fast as the test
    /// advances the clock, far faster than any consumer: dropping the fixes a consumer has not read
    /// yet made the same replay give different lines on every run (15 to 52 of 300). Keeping them
    /// all, every consumer reads every fix, in order, every run.
    public enum UpdateBuffering: Sendable, Hashable {
        /// Keep only the newest `count` fixes not yet read (at least 1); older ones are dropped.
        /// On a virtual clock which ones a consumer reads then depends on how fast it runs.
        case newest(Int)
        /// Keep every fix: a slow consumer reads them all, later; memory grows while it lags.
        case all
    }
}
