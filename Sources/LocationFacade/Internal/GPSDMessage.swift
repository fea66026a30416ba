#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif
import GPSCore

/// One report from gpsd, decoded into Swift terms.
enum GPSDMessage: Sendable, Equatable {
    /// A TPV report with a usable position (mode 2 or 3).
    case fix(Location)
    /// A TPV report without one (mode 0 or 1, or no latitude/longitude).
    case noFix(device: String?, time: Date?)
    /// A SKY report.
    case sky(SatelliteReport)
    /// The DEVICES report: every receiver gpsd knows.
    case devices([GPSDevice])
    /// A DEVICE report: one receiver appeared, changed or went away.
    case device(GPSDevice)
    /// The VERSION banner.
    case version(release: String)
    /// The answer to a WATCH request.
    case watch(enabled: Bool)
    /// The answer to `?POLL;`: the latest fix of each active device that has one, and the answer's
    /// own `time` (gpsd's host clock when it answered).
    case poll(fixes: [Location], time: Date?)
    /// An ERROR report.
    case error(message: String)
    /// A report this client does not use (GST, ATT, PPS, TOFF, AIS...).
    case ignored(className: String)
    /// Not a report at all.
    case malformed(reason: String)
}

/// Byte-level checks on one line from gpsd, done before libgps sees it: libgps parses leniently
/// and reports no errors, so a truncated or garbage line would otherwise pass as a report.
/// The scanning itself is ``JSONScan``'s.
enum GPSDLine {
    /// The value of the line's `"class"` member, or `nil` if it has none.
    static func className(_ line: UnsafeBufferPointer<UInt8>) -> Substring? {
        JSONScan.stringMember(named: "class", in: line).map {
            Substring(decoding: UnsafeBufferPointer(rebasing: line[$0]), as: UTF8.self)
        }
    }

    /// Whether `line` is one complete JSON object (and where its first white space between tokens
    /// is), or why it is not one.
    static func scan(_ line: UnsafeBufferPointer<UInt8>) -> JSONScan.ObjectScan {
        JSONScan.scanObject(line)
    }

    /// The byte ranges of the objects in the array member `name` (such as `"tpv"` in a POLL report).
    static func objectsInArray(named name: String, of line: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        JSONScan.objectsInArray(named: name, of: line)
    }

    /// Whether the line has a member called `name`.
    static func hasMember(_ name: String, in line: UnsafeBufferPointer<UInt8>) -> Bool {
        JSONScan.hasMember(name, in: line)
    }

    /// The first `maximum` characters of `line`, for error messages.
    static func excerpt(_ line: UnsafeBufferPointer<UInt8>, maximum: Int = 80) -> String {
        JSONScan.excerpt(line, maximum: maximum)
    }
}

/// Decodes gpsd JSON reports into the events a source reports, with libgps's parser: for the
/// replay devices in Simulators, which read recorded gpsd logs. Not thread-safe: one per thread.
package final class GPSDReportDecoder {
    private let decoder = LibGPSDecoder()

    package init() {}

    /// The event `line` stands for (a fix, a no-fix report, a satellite report), or `nil` for a
    /// report a location source does not pass on.
    package func event(for line: String, receivedAt: Date) -> LocationEvent? {
        switch decoder.decode(line, receivedAt: receivedAt) {
        case let .fix(location): .location(location)
        case let .noFix(device, time): .noFix(device: device, time: time)
        case let .sky(report): .satellites(report)
        default: nil
        }
    }
}
