#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a ``GPSDClient`` tells its delegate, in the manner of `CLLocationManagerDelegate`.
///
/// Every method has an empty default, so implement only what you need. The client calls them on
/// its own reader thread, one at a time and in the order things happened; return quickly, and hop
/// to your own actor or queue for real work.
///
/// ```swift
/// final class Printer: GPSDClientDelegate {
///     func gpsdClient(_ client: GPSDClient, didUpdateLocation location: Location) {
///         print(location.latitude, location.longitude)
///     }
/// }
/// let printer = Printer()
/// let client = GPSDClient()
/// client.delegate = printer   // weak: keep `printer` alive yourself
/// client.start()
/// ```
public protocol GPSDClientDelegate: AnyObject, Sendable {
    /// A new fix (2D or 3D) arrived.
    func gpsdClient(_ client: GPSDClient, didUpdateLocation location: Location)

    /// gpsd answered ``GPSDClient/requestLatestFix()`` with the fix it already had. Its
    /// `receivedAt` is when gpsd got it, when gpsd's clock can tell (``GPSDClient/Configuration/hostClock``);
    /// `LocationEvent.cachedLocation(_:age:)`, which observers get, says its age, or that it is unknown.
    func gpsdClient(_ client: GPSDClient, didReceiveLatestFix location: Location)

    /// A report without a position arrived: no fix yet, or the fix was lost.
    func gpsdClient(_ client: GPSDClient, didReportNoFixFrom device: String?, at time: Date?)

    /// A satellite report (counts and dilutions of precision) arrived.
    func gpsdClient(_ client: GPSDClient, didUpdateSatellites report: SatelliteReport)

    /// The receivers gpsd knows changed.
    func gpsdClient(_ client: GPSDClient, didChangeDevices devices: [GPSDevice])

    /// The connection changed state: connecting, watching, waiting to reconnect, stopped.
    func gpsdClient(_ client: GPSDClient, didChangeState state: ConnectionState)

    /// Something went wrong: gpsd unreachable, the connection lost, malformed data, a gpsd error.
    /// The client keeps going (reconnecting with backoff) until ``GPSDClient/stop()``.
    func gpsdClient(_ client: GPSDClient, didFailWithError error: LocationError)
}

extension GPSDClientDelegate {
    public func gpsdClient(_ client: GPSDClient, didUpdateLocation location: Location) {}
    public func gpsdClient(_ client: GPSDClient, didReceiveLatestFix location: Location) {}
    public func gpsdClient(_ client: GPSDClient, didReportNoFixFrom device: String?, at time: Date?) {}
    public func gpsdClient(_ client: GPSDClient, didUpdateSatellites report: SatelliteReport) {}
    public func gpsdClient(_ client: GPSDClient, didChangeDevices devices: [GPSDevice]) {}
    public func gpsdClient(_ client: GPSDClient, didChangeState state: ConnectionState) {}
    public func gpsdClient(_ client: GPSDClient, didFailWithError error: LocationError) {}
}
