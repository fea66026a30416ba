#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// What went wrong while getting a location, with the facts a user needs to act on it.
///
/// Each case's `description` is a sentence that names the server, the timeout or the data at fault.
public enum LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// gpsd could not be reached at `host`:`port`: nothing listens there, the name does not resolve,
    /// or the TCP connect did not complete within the connect timeout. `reason` says which.
    case unreachable(host: String, port: UInt16, reason: String)
    /// An established connection to gpsd at `host`:`port` ended: gpsd closed it, or a read failed.
    case connectionLost(host: String, port: UInt16, reason: String)
    /// No fix meeting the request's criteria arrived within `after`. `best` is the best fix seen
    /// (most accurate, then newest) while waiting, if any; `lastError` the last thing that went
    /// wrong meanwhile (the connect that never completed, the garbage the peer sent), if anything did.
    indirect case timedOut(after: Duration, best: Location?, lastError: LocationError? = nil)
    /// The request was cancelled because its source was stopped or shut down.
    case cancelled
    /// gpsd (or a fake of it) sent something that is not a well-formed report. `excerpt` is the start
    /// of the offending line; `reason` says what is wrong with it.
    case malformedData(excerpt: String, reason: String)
    /// gpsd answered a request with an `ERROR` report; `message` is its text.
    case serverError(message: String)
    /// The peer at `host`:`port` accepted the connection but sent nothing within `after`, where
    /// gpsd greets every client at once: it is not gpsd, or it hangs.
    case silent(host: String, port: UInt16, after: Duration)
    /// The location service `service` (such as "GeoClue (org.freedesktop.GeoClue2)") is not on
    /// `bus`, or there is no such bus: `reason` says which. Requests fail at once, as for an
    /// unreachable gpsd.
    case serviceUnavailable(service: String, bus: String, reason: String)
    /// The location service refused this program its location: location services are off for
    /// the user, or the agent that asks the user (a desktop's or phone's shell) said no. `reason`
    /// is the service's answer. Final, like CoreLocation's `denied`: the source stops asking.
    case notAuthorized(service: String, reason: String)
    /// The location service went away (it exited or restarted) or its connection ended; the
    /// source connects again when it is back.
    case serviceLost(service: String, reason: String)
    /// The location service holds this program's request until it is authorized: GeoClue waits
    /// for an agent (the part of a desktop's or phone's shell that asks the user) to register for
    /// this user. `reason` says for what. Nothing fails; a request that times out names it.
    case awaitingAuthorization(service: String, reason: String)

    public var description: String {
        switch self {
        case let .unreachable(host, port, reason):
            "Cannot reach gpsd at \(Self.endpoint(host, port)): \(reason). Is gpsd running and listening there?"
        case let .connectionLost(host, port, reason):
            "Lost the connection to gpsd at \(Self.endpoint(host, port)): \(reason)."
        case let .timedOut(timeout, best, lastError):
            if let best {
                "No fix met the request within \(Self.format(timeout)); the best seen was \(best)."
                    + (lastError.map { " Meanwhile: \($0)" } ?? "")
            } else if let lastError {
                "No fix arrived within \(Self.format(timeout)). \(lastError)"
            } else {
                "No fix arrived within \(Self.format(timeout))."
            }
        case .cancelled:
            "The location request was cancelled because its source was stopped."
        case let .malformedData(excerpt, reason):
            "gpsd sent malformed data (\(reason)): \(excerpt)"
        case let .serverError(message):
            "gpsd reported an error: \(message)"
        case let .silent(host, port, after):
            "The server at \(Self.endpoint(host, port)) accepted the connection but has sent nothing in \(Self.format(after)), "
                + "where gpsd greets a client at once: is it gpsd?"
        case let .serviceUnavailable(service, bus, reason):
            "\(service) is not available on \(bus): \(reason). Is it installed, and does the bus's policy let this program reach it?"
        case let .notAuthorized(service, reason):
            "\(service) refused this program its location: \(reason). Location services are off for this user, "
                + "or the user's agent (the desktop or phone shell that asks) said no."
        case let .serviceLost(service, reason):
            "Lost \(service): \(reason); connecting again when it is back."
        case let .awaitingAuthorization(service, reason):
            "\(service) is waiting for this program to be authorized: \(reason)."
        }
    }

    /// `host:port`, with brackets around an IPv6 address.
    package static func endpoint(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// A duration as a person would say it: `10 s`, `1.5 s`, `250 ms`.
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds < 1000 && milliseconds > -1000 {
            return "\(milliseconds) ms"
        }
        if milliseconds % 1000 == 0 {
            return "\(milliseconds / 1000) s"
        }
        // Three significant digits, as %.3g: 1.25 s, 12.5 s, 125 s.
        let value = Double(milliseconds) / 1000
        let decimals = abs(value) < 10 ? 2 : abs(value) < 100 ? 1 : 0
        var bytes: [UInt8] = []
        TextBytes.appendFixed(value, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self) + " s"
    }
}
