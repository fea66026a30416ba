import Foundation

/// gpsd 3.22's regression logs: recordings of many real receivers (NMEA, SiRF, u-blox, Garmin,
/// Trimble, AIS...), the corpus of the suites that hold our code to real gpsd and its decoder.
///
/// They are gpsd's, not ours, and never committed: `scripts/fetch-gpsd-logs` downloads them from
/// Debian's source archive into `.cache/`, and `scripts/test` names that folder in
/// `GPSD_TEST_LOGS` (set it to any folder of `*.log` files to use others).
public enum GPSDRegressionLogs {
    /// `GPSD_TEST_LOGS`, or `.cache/gpsd-3.22/test/daemon` in this repository.
    public static let folder: URL = {
        if let path = ProcessInfo.processInfo.environment["GPSD_TEST_LOGS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return Repository.root.appendingPathComponent(".cache/gpsd-3.22/test/daemon")
    }()

    /// Every `*.log` in ``folder``, by name; empty when the folder is missing.
    public static let logs: [URL] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".log") }.sorted().map { folder.appendingPathComponent($0) }
    }()

    /// gpsd's drivers that read NMEA 0183 sentences (the generic one and dialects that extend it),
    /// and AIS, whose sentences carry no fix of the receiver. A log gpsd read with any other
    /// driver is a binary protocol, not an NMEA log.
    public static let nmeaDrivers: Set<String> = ["NMEA0183", "MTK-3301", "True North", "AIVDM"]

    /// Whether gpsd read a log with `drivers` (as ``gpsdecode(_:)`` gives them) as NMEA 0183.
    public static func isNMEA(drivers: Set<String>) -> Bool {
        drivers.contains("NMEA0183") && drivers.isSubset(of: nmeaDrivers)
    }

    /// `gpsdecode -j -D 4 < log` (gpsd-clients): the drivers gpsd's decoder selected for it, and
    /// its JSON reports.
    public static func gpsdecode(_ log: URL) async throws -> (drivers: Set<String>, reports: [[String: Any]]) {
        let result = try await Command.run("/usr/bin/gpsdecode", ["-j", "-D", "4"], standardInput: log.path)
        let drivers = Set(result.error.compactMap { line -> String? in
            guard let start = line.range(of: "selecting "), let end = line.range(of: " driver", range: start.upperBound..<line.endIndex) else { return nil }
            return String(line[start.upperBound..<end.lowerBound])
        })
        let text = String(data: result.output, encoding: .isoLatin1) ?? ""
        let reports = text.split(whereSeparator: \.isNewline).compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        return (drivers, reports)
    }
}
