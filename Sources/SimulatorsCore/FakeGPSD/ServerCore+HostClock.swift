#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

extension ServerCore {
    /// A report's `time`, read without a JSON parser (for every TPV sent: the fast pace sends
    /// hundreds of thousands a second).
    static func time(of line: String) -> Date? {
        var line = line
        return line.withUTF8 { bytes in
            JSONScan.stringMember(named: "time", in: bytes).flatMap {
                RFC3339.parse(utf8: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[$0]))?.date
            }
        }
    }

    /// The clock of the fake gpsd's host, on the script's time line: what gpsd's answer to `?POLL;`
    /// reads from the machine it runs on. A real gpsd's host clock and its receiver's GPS time run
    /// side by side; here the host clock is set by the TPVs sent (the time of the latest, when it
    /// is later than the clock reads) and runs on at `rate` seconds per second of the server's
    /// clock, so that a held fix's age in the answer is the time since it was sent.
    struct HostClock {
        var anchor: (date: Date, at: Duration)?

        /// The time at `now` on the server's clock, or `nil` before any TPV with a time was sent.
        func date(at now: Duration, rate: Double) -> Date? {
            guard let anchor else { return nil }
            let elapsed = now - anchor.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return anchor.date.addingTimeInterval(seconds * rate)
        }

        /// A TPV dated `date` was sent at `now`: the clock is set to it unless it reads later.
        mutating func sent(dated date: Date, at now: Duration, rate: Double) {
            if let current = self.date(at: now, rate: rate), current >= date { return }
            anchor = (date, now)
        }
    }
}
