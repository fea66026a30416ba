#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension GPSDClient {
    /// Whether gpsd's host clock keeps true time: what decides whether the fix gpsd holds can be
    /// dated.
    ///
    /// gpsd's answer to `?POLL;` says when it answered (its `time`, from the clock of the machine
    /// gpsd runs on) and when each fix it holds was made (the fix's `time`, from the receiver: GPS
    /// time). Their difference is the fix's age only when that machine's clock is right, as it is
    /// wherever an NTP daemon such as chrony keeps it (often fed by gpsd itself). A Raspberry Pi
    /// without a real-time clock starts at the date it was last shut down, and until the network
    /// sets it the difference says nothing. So the client reports a held fix's age (in
    /// `LocationEvent.cachedLocation(_:age:)`) only when the clock is trusted, and `nil` otherwise:
    /// a `LocationManager` request with a `maximumAge` then waits for a new fix rather than take a
    /// fix of unknown age.
    public enum HostClock: Sendable, Hashable {
        /// For a gpsd on this machine (`localhost`, a loopback address), trust the clock when the
        /// kernel says it is synchronized (`adjtimex(2)` neither returns `TIME_ERROR` nor sets
        /// `STA_UNSYNC`), asked at each answer; for a gpsd elsewhere, whose kernel this machine
        /// cannot ask, do not. The default.
        case automatic
        /// Trust gpsd's clock: it is known to keep true time (a gpsd on another machine that runs
        /// chrony), or it is a fake whose clock is the replay's own.
        case synchronized
        /// Never trust it: a held fix's age is unknown, and never taken as recent.
        case unsynchronized

        /// Whether the clock of a gpsd at `host` is trusted, asking `kernel` (this machine's
        /// answer: synchronized, not, or `nil` when it cannot be asked) only when it must.
        package func trusts(host: String, kernel: () -> Bool?) -> Bool {
            switch self {
            case .synchronized: true
            case .unsynchronized: false
            case .automatic: Self.isThisMachine(host) && kernel() == true
            }
        }

        /// Whether `host` names this machine: `localhost` (and names under it), an IPv4 loopback
        /// address (127.0.0.0/8) or IPv6's (`::1`).
        package static func isThisMachine(_ host: String) -> Bool {
            let name = host.lowercased()
            if name == "localhost" || name.hasSuffix(".localhost") || name == "localhost.localdomain" || name == "ip6-localhost" {
                return true
            }
            if name == "::1" || name == "[::1]" || name == "0:0:0:0:0:0:0:1" { return true }
            let octets = name.split(separator: ".", omittingEmptySubsequences: false)
            return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
        }
    }

    /// The age of `fix`, held by gpsd, from a POLL answer made at `answeredAt` on gpsd's clock,
    /// when that clock is `trusted`; `nil` when it is not, when either time is missing, or when the
    /// fix is dated more than a second after the answer (a clock set wrong, whatever the kernel
    /// says). A fix dated up to a second after it (a receiver's rounding) is new: age zero.
    package static func age(of fix: Location, answeredAt: Date?, trusted: Bool) -> Duration? {
        guard trusted, let answeredAt, let time = fix.time else { return nil }
        let seconds = answeredAt.timeIntervalSince(time)
        guard seconds >= -1 else { return nil }
        return seconds > 0 ? .seconds(seconds) : .zero
    }
}
