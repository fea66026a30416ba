import Foundation
import LocationFacade

// What GPSDConformance compares of each report, and how it lines two lists of epochs up.
extension GPSDConformance {
    /// A fix as a client has it: the fields of a `Location` that gpsd's TPV gives.
    static func epoch(_ location: Location) -> Epoch {
        var fields: [String: Double] = [
            "mode": Double(location.mode.gpsdMode), "latitude": location.latitude, "longitude": location.longitude,
        ]
        let optional: [(String, Double?)] = [
            ("status", location.status.map { Double($0.gpsdStatus) }),
            ("altitude", location.altitude), ("ellipsoidalAltitude", location.ellipsoidalAltitude),
            ("horizontalAccuracy", location.horizontalAccuracy), ("verticalAccuracy", location.verticalAccuracy),
            ("speed", location.speed), ("speedAccuracy", location.speedAccuracy),
            ("course", location.course), ("courseAccuracy", location.courseAccuracy), ("climb", location.climb),
        ]
        for case let (name, value?) in optional { fields[name] = value }
        return Epoch(time: location.time, fields: fields)
    }

    /// A satellite report as a client has it, but for the device and time.
    static func skyFields(_ report: SatelliteReport) -> SatelliteReport {
        var report = report
        report.device = nil
        report.time = nil
        return report
    }

    /// The TPV fields compared as gpsd writes them.
    static let tpvFields = [
        "mode", "status", "lat", "lon", "altHAE", "altMSL", "alt", "geoidSep", "ept", "epx", "epy", "epv", "eph",
        "sep", "eps", "epd", "epc", "track", "speed", "climb",
    ]

    /// gpsd's "simulated" status, which a fake gives what it serves.
    static let simulated = 8.0

    /// A JSON report as written: a TPV's compared fields, or a SKY's fields but for the device and
    /// time. gpsd's TPV without a status of DGPS or better is taken as the fake must report it
    /// (`markedSimulated` false): "simulated".
    static func jsonReport(_ line: String, markedSimulated: Bool) -> Report? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        switch object["class"] as? String {
        case "TPV":
            var fields: [String: Double] = [:]
            for name in tpvFields {
                if let value = (object[name] as? NSNumber)?.doubleValue { fields[name] = value }
            }
            if !markedSimulated, (fields["status"] ?? 0) < 2 { fields["status"] = simulated }
            return .fix(Epoch(time: (object["time"] as? String).flatMap { RFC3339.parse($0)?.date }, fields: fields))
        case "SKY":
            var sky = object
            sky["device"] = nil
            sky["time"] = nil
            return .sky(AnyHashable(sky as NSDictionary))
        default:
            return nil
        }
    }

    /// 1024 weeks: how far gpsd 3.22 moves an NMEA date before 2017 (it takes it for a GPS week
    /// rollover, from the leap seconds it was built with). The fakes keep the receiver's date.
    public static let rollover: TimeInterval = 1024 * 7 * 86_400

    /// Whether two times are the same, or gpsd's is ours moved by a rollover.
    static func sameTime(_ ours: Date?, _ theirs: Date?) -> Bool {
        guard let ours, let theirs else { return ours == nil && theirs == nil }
        return ours == theirs || abs(ours.addingTimeInterval(rollover).timeIntervalSince(theirs)) < 0.0005
    }

    /// The fields that differ between our epoch and gpsd's, by name, with both values.
    static func differences(_ ours: Epoch, _ theirs: Epoch) -> [(field: String, ours: String, theirs: String)] {
        var found: [(String, String, String)] = []
        if !sameTime(ours.time, theirs.time) {
            found.append(("time", ours.time.map { "\($0)" } ?? "none", theirs.time.map { "\($0)" } ?? "none"))
        }
        for name in Set(ours.fields.keys).union(theirs.fields.keys).sorted() where ours.fields[name] != theirs.fields[name] {
            found.append((name, ours.fields[name].map { "\($0)" } ?? "none", theirs.fields[name].map { "\($0)" } ?? "none"))
        }
        return found
    }

    static func describe(_ epoch: Epoch) -> String {
        let time = epoch.time.map { RFC3339.string(from: $0, fractionDigits: 3) } ?? "untimed"
        let position = [epoch.fields["latitude"] ?? epoch.fields["lat"], epoch.fields["longitude"] ?? epoch.fields["lon"]]
            .compactMap { $0 }.map { "\($0)" }.joined(separator: ",")
        return "\(time) mode \(Int(epoch.fields["mode"] ?? 0)) \(position)"
    }

    static func compareEpochs(_ ours: [Epoch], _ theirs: [Epoch], into outcome: inout Outcome) {
        let pairs = alignment(ours, theirs) { sameTime($0.time, $1.time) }
        var (i, j) = (0, 0)
        func note(_ field: String, _ problem: String) {
            outcome.differingFields[field, default: 0] += 1
            if outcome.problems.count < 20 { outcome.problems.append(problem) }
        }
        for (a, b) in pairs + [(ours.count, theirs.count)] {
            while i < a {
                outcome.fixes += 1
                note("only fake", "the fake gives \(describe(ours[i])), gpsd nothing")
                i += 1
            }
            while j < b {
                outcome.fixes += 1
                note("only gpsd", "gpsd gives \(describe(theirs[j])), the fake nothing")
                j += 1
            }
            guard a < ours.count, b < theirs.count else { break }
            outcome.fixes += 1
            let found = differences(ours[a], theirs[b])
            if found.isEmpty { outcome.agreeingFixes += 1 }
            for difference in found {
                note(difference.field, "\(describe(theirs[b])): \(difference.field) \(difference.ours), gpsd \(difference.theirs)")
            }
            (i, j) = (a + 1, b + 1)
        }
    }

    static func compareSkies(_ ours: [AnyHashable], _ theirs: [AnyHashable], into outcome: inout Outcome) {
        outcome.skies = max(ours.count, theirs.count)
        for (index, (a, b)) in zip(ours, theirs).enumerated() {
            if a == b {
                outcome.agreeingSkies += 1
            } else {
                outcome.differingFields["satellites", default: 0] += 1
                if outcome.problems.count < 20 { outcome.problems.append("satellite report \(index): the fake's \(a), gpsd's \(b)") }
            }
        }
        if ours.count != theirs.count {
            outcome.differingFields["satellite reports", default: 0] += abs(ours.count - theirs.count)
            outcome.problems.append("the fake gives \(ours.count) satellite reports, gpsd \(theirs.count)")
        }
    }

    /// The index pairs of a longest common subsequence of `a` and `b` under `same`.
    static func alignment<A, B>(_ a: [A], _ b: [B], same: (A, B) -> Bool) -> [(Int, Int)] {
        let (n, m) = (a.count, b.count)
        guard n > 0, m > 0 else { return [] }
        var lengths = [[Int32]](repeating: [Int32](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i][j] = same(a[i], b[j]) ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var (i, j) = (0, 0)
        while i < n, j < m {
            if same(a[i], b[j]) {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
