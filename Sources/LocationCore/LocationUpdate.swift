/// One element of ``LocationManager/liveUpdates(minimumMode:desiredAccuracy:distanceFilter:buffering:)``,
/// in the manner of CoreLocation's `CLLocationUpdate`: a fix, or word that none is coming.
///
/// ```swift
/// for try await update in manager.liveUpdates(desiredAccuracy: 20) {
///     if let location = update.location {
///         print(location)
///     } else if update.locationUnavailable {
///         print("no usable fix for a while")   // a tunnel, an antenna unplugged, gpsd gone
///     }
/// }
/// ```
///
/// More may be said of a fix later: each will be a property of its own with a default, so code
/// that makes or reads an update keeps compiling.
public struct LocationUpdate: Sendable, Hashable {
    /// The fix, or `nil` in an update that says no usable fix has come (``locationUnavailable``).
    public var location: Location?

    /// Whether no fix meeting the stream's criteria has come for
    /// ``LocationManager/Configuration/unavailableAfter`` (10 s by default), since the stream
    /// began or since its last usable fix: `CLLocationUpdate.locationUnavailable`. Such an update
    /// has no ``location``; the stream says it once, and goes on with the next usable fix.
    public var locationUnavailable: Bool

    /// Whether the device stands still: `CLLocationUpdate.isStationary`. It is true once the
    /// fixes have stayed slower than ``LocationManager/Configuration/stationaryRule`` for its idle
    /// time (below 0.5 m/s for 10 s by default), and false again from the first fix that moves, as
    /// the ``MotionDetector`` a workout session's auto-pause uses decides it: a receiver's wander
    /// at rest is not motion. A fix without a reported speed is judged by the fixes 3 s after it,
    /// so the flag follows such fixes 3 s late.
    public var isStationary: Bool

    /// An update with `location`, or (`nil`, `true`) one that says no usable fix has come.
    public init(location: Location?, locationUnavailable: Bool = false, isStationary: Bool = false) {
        self.location = location
        self.locationUnavailable = locationUnavailable
        self.isStationary = isStationary
    }
}
