import Foundation
import LocationFacade

/// A fix as gpsd itself reported it (a TPV line from `gpspipe -w`), read with JSONSerialization,
/// independently of libgps and of our mapping, to check what our client reports.
public struct ReferenceFix: Sendable, CustomStringConvertible {
    public var fields: [String: Double]
    public var time: Date?
    public var mode: Int
    public var device: String?

    /// The fixes (TPVs with mode 2 or 3 and a position) in `gpspipe -w` output, in order.
    public static func fixes(inGPSPipeOutput lines: [String]) -> [ReferenceFix] {
        lines.compactMap(ReferenceFix.init(line:))
    }

    /// The fixes in a gpsd JSON log (gpsd ends its lines with CRLF, which Swift counts as one
    /// Character: split on newlines, not on "\n").
    public static func fixes(inGPSDLog text: String) -> [ReferenceFix] {
        fixes(inGPSPipeOutput: text.split(whereSeparator: \.isNewline).map(String.init))
    }

    /// A TPV line with a position, or nil for any other line.
    public init?(line: String) {
        guard line.contains(#""class":"TPV""#),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let mode = object["mode"] as? Int, mode >= 2,
              object["lat"] is NSNumber, object["lon"] is NSNumber
        else { return nil }
        self.mode = mode
        device = object["device"] as? String
        time = (object["time"] as? String).flatMap { RFC3339.parse($0)?.date }
        fields = object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    public var description: String {
        "TPV mode \(mode) at \(time.map { RFC3339.string(from: $0) } ?? "-") \(fields["lat"] ?? .nan), \(fields["lon"] ?? .nan)"
    }

    /// What differs between this fix and `location`, as sentences; empty when they agree.
    public func differences(from location: Location) -> [String] {
        var problems: [String] = []
        func check(_ name: String, _ ours: Double?, _ key: String, when condition: Bool = true) {
            guard condition else { return }
            if ours != fields[key] {
                problems.append("\(name) is \(ours.map { "\($0)" } ?? "nil"), gpsd said \(fields[key].map { "\($0)" } ?? "nothing") (\(key))")
            }
        }
        check("latitude", location.latitude, "lat")
        check("longitude", location.longitude, "lon")
        check("altitude above the ellipsoid", location.ellipsoidalAltitude, "altHAE", when: mode == 3)
        check("altitude", location.altitude, "altMSL", when: mode == 3 && fields["altMSL"] != nil)
        check("speed", location.speed, "speed")
        check("course", location.course, "track")
        check("vertical accuracy", location.verticalAccuracy, "epv", when: mode == 3)
        check("climb", location.climb, "climb", when: mode == 3)
        check("horizontal accuracy", location.horizontalAccuracy, "eph", when: fields["eph"] != nil)
        if location.mode.gpsdMode != mode { problems.append("mode is \(location.mode), gpsd said \(mode)") }
        if let time, let ours = location.time, abs(ours.timeIntervalSince(time)) >= 0.0005 {
            problems.append("time is \(RFC3339.string(from: ours)), gpsd said \(RFC3339.string(from: time))")
        } else if (time == nil) != (location.time == nil) {
            problems.append("time is \(location.time.map { RFC3339.string(from: $0) } ?? "nil"), gpsd said \(time.map { RFC3339.string(from: $0) } ?? "nothing")")
        }
        if location.device != device { problems.append("device is \(location.device ?? "nil"), gpsd said \(device ?? "nothing")") }
        return problems
    }

    /// Every disagreement between what gpsd reported and what we reported, pair by pair, plus a
    /// count mismatch; empty when the two lists are the same fixes in the same order.
    public static func compare(_ ours: [Location], with reference: [ReferenceFix]) -> [String] {
        var problems: [String] = []
        if ours.count != reference.count {
            problems.append("we reported \(ours.count) fixes, gpsd reported \(reference.count)")
        }
        for (index, (location, fix)) in zip(ours, reference).enumerated() {
            let differences = fix.differences(from: location)
            if !differences.isEmpty {
                problems.append("fix \(index) (\(fix)): " + differences.joined(separator: "; "))
            }
            if problems.count > 10 { break }
        }
        return problems
    }
}
