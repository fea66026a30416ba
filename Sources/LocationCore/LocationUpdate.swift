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
/// More may be said of a fix later (whether the device is stationary, as `CLLocationUpdate`'s
/// `isStationary`): each will be a property of its own with a default, so code that makes or reads
/// an update keeps compiling.
public struct LocationUpdate: Sendable, Hashable {
    /// The fix, or `nil` in an update that says no usable fix has come (``locationUnavailable``).
    public var location: Location?

    /// Whether no fix meeting the stream's criteria has come for
    /// ``LocationManager/Configuration/unavailableAfter`` (10 s by default), since the stream
    /// began or since its last usable fix: `CLLocationUpdate.locationUnavailable`. Such an update
    /// has no ``location``; the stream says it once, and goes on with the next usable fix.
    public var locationUnavailable: Bool

    /// An update with `location`, or (`nil`, `true`) one that says no usable fix has come.
    public init(location: Location?, locationUnavailable: Bool = false) {
        self.location = location
        self.locationUnavailable = locationUnavailable
    }
}
