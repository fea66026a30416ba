#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

/// Writes NMEA 0183 sentences (RMC, GGA, GSA, GSV, VTG) with correct checksums, as a GPS receiver
/// on a serial line would, so that real gpsd can read a simulated track.
///
/// ```swift
/// for sentence in NMEAEncoder.epoch(for: fix, after: fixBefore, satellites: sky) { print(sentence, terminator: "") }
/// ```
///
/// Positions are written with six decimals of arc-minutes (about 2 mm), so gpsd decodes them
/// to within 1e-7 degrees of the fix.
public enum NMEAEncoder {
    /// The satellites a fake receiver reports when none are given: eight in a plausible sky.
    public static let defaultSky: [Satellite] = [
        Satellite(prn: 2, elevation: 62, azimuth: 41, signalStrength: 44, used: true),
        Satellite(prn: 5, elevation: 48, azimuth: 118, signalStrength: 41, used: true),
        Satellite(prn: 12, elevation: 35, azimuth: 203, signalStrength: 39, used: true),
        Satellite(prn: 15, elevation: 27, azimuth: 290, signalStrength: 36, used: true),
        Satellite(prn: 18, elevation: 71, azimuth: 330, signalStrength: 45, used: true),
        Satellite(prn: 21, elevation: 19, azimuth: 77, signalStrength: 31, used: true),
        Satellite(prn: 25, elevation: 12, azimuth: 160, signalStrength: 28, used: true),
        Satellite(prn: 29, elevation: 8, azimuth: 255, signalStrength: 22, used: false),
    ]

    /// The geoid separation written in GGA (metres of the geoid above the ellipsoid).
    public static let defaultGeoidSeparation = 45.6

    /// One second's sentences for a fix: RMC, GGA, GSA, GSV (as many as needed) and VTG.
    /// A 2D fix is written with GGA quality 1 but no altitude, and GSA mode 2. A fix without a
    /// speed (or course) is written without one, as a receiver that does not know it writes it:
    /// give the fix before as `previous` to have them worked out, as a receiver moving from one to
    /// the other reports them (``movement(of:after:)``).
    public static func epoch(
        for fix: Location, after previous: Location? = nil,
        satellites: [Satellite] = defaultSky, hdop: Double = 0.9, vdop: Double = 1.3, pdop: Double = 1.6
    ) -> [String] {
        let fix = movement(of: fix, after: previous)
        let time = fix.time ?? fix.receivedAt
        let (clock, date) = timeFields(time)
        let latitude = coordinate(fix.latitude, degreesWidth: 2, positive: "N", negative: "S")
        let longitude = coordinate(fix.longitude, degreesWidth: 3, positive: "E", negative: "W")
        let knots = fix.speed.map { $0 * 3600 / 1852 }
        let course = fix.course.map { TextBytes.fixed($0, decimals: 2) } ?? ""
        let used = satellites.filter(\.used)
        let altitude = fix.mode == .fix3D ? fix.altitude ?? fix.ellipsoidalAltitude.map { $0 - defaultGeoidSeparation } : nil
        let separation = fix.mode == .fix3D ? geoidSeparation(fix) : nil

        var sentences: [String] = []
        let knotsText = knots.map { TextBytes.fixed($0, decimals: 3) } ?? ""
        sentences.append(sentence("GPRMC,\(clock),A,\(latitude),\(longitude),\(knotsText),\(course),\(date),,,A"))
        let gga: [String] = [
            "GPGGA", clock, latitude, longitude, "1", TextBytes.padded(used.count, width: 2), TextBytes.fixed(hdop, decimals: 1),
            altitude.map { TextBytes.fixed($0, decimals: 3) } ?? "", "M",
            separation.map { TextBytes.fixed($0, decimals: 1) } ?? "", "M", "", "",
        ]
        sentences.append(sentence(gga.joined(separator: ",")))
        sentences.append(gsa(mode: fix.mode, used: used, pdop: pdop, hdop: hdop, vdop: vdop))
        sentences += gsv(satellites)
        let kmh = fix.speed.map { TextBytes.fixed($0 * 3.6, decimals: 3) } ?? ""
        sentences.append(sentence("GPVTG,\(course),T,,M,\(knotsText),N,\(kmh),K,A"))
        return sentences
    }

    /// `fix` with the speed and course a receiver reports when moving from `previous` to it,
    /// where the fix has none of its own (a GPX track without `<speed>`): the distance between
    /// them (`Geodesy.distance(_:_:_:_:)`, GPSCore) over the time between them, and the bearing from
    /// one to the other (`Geodesy.initialBearing(_:_:_:_:)`; none when it has not moved). Without
    /// a fix before, or times a positive interval apart, it stays without.
    ///
    /// ```swift
    /// let moving = NMEAEncoder.movement(of: track[1], after: track[0])   // speed and course from the two
    /// ```
    public static func movement(of fix: Location, after previous: Location?) -> Location {
        guard fix.speed == nil || fix.course == nil, let previous, let time = fix.time, let before = previous.time else { return fix }
        let elapsed = time.timeIntervalSince(before)
        guard elapsed > 0 else { return fix }
        var fix = fix
        let distance = Geodesy.distance(previous.latitude, previous.longitude, fix.latitude, fix.longitude)
        if fix.speed == nil { fix.speed = distance / elapsed }
        if fix.course == nil, distance > 0 {
            fix.course = Geodesy.initialBearing(previous.latitude, previous.longitude, fix.latitude, fix.longitude)
        }
        return fix
    }

    /// One second's sentences of a receiver without a fix: RMC status V, GGA quality 0, GSA mode 1.
    public static func noFixEpoch(at time: Date, satellites: [Satellite] = []) -> [String] {
        let (clock, date) = timeFields(time)
        var sentences = [
            sentence("GPRMC,\(clock),V,,,,,,,\(date),,,N"),
            sentence("GPGGA,\(clock),,,,,0,00,99.99,,,,,,"),
            gsa(mode: .noFix, used: [], pdop: 99.99, hdop: 99.99, vdop: 99.99),
        ]
        if !satellites.isEmpty { sentences += gsv(satellites) }
        return sentences
    }

    /// `$body*CS\r\n`, with the XOR checksum of `body`.
    public static func sentence(_ body: String) -> String {
        NMEAFields.sentence(body)
    }

    /// The NMEA checksum: the XOR of every byte between `$` and `*`.
    public static func checksum(_ body: some StringProtocol) -> UInt8 {
        NMEAFields.checksum(body)
    }

    /// Whether `line` is a sentence whose checksum is right.
    public static func isValid(_ line: String) -> Bool {
        let trimmed = line.trimmingWhitespace()
        guard trimmed.hasPrefix("$") || trimmed.hasPrefix("!"), let star = trimmed.lastIndex(of: "*") else { return false }
        let body = trimmed[trimmed.index(after: trimmed.startIndex)..<star]
        guard let expected = UInt8(trimmed[trimmed.index(after: star)...], radix: 16) else { return false }
        return checksum(body) == expected
    }

    // MARK: - Pieces

    private static func gsa(mode: FixMode, used: [Satellite], pdop: Double, hdop: Double, vdop: Double) -> String {
        var fields = ["GPGSA", "A", "\(mode.gpsdMode)"]
        for slot in 0..<12 {
            fields.append(slot < used.count ? TextBytes.padded(used[slot].prn, width: 2) : "")
        }
        fields += [TextBytes.fixed(pdop, decimals: 2), TextBytes.fixed(hdop, decimals: 2), TextBytes.fixed(vdop, decimals: 2)]
        return sentence(fields.joined(separator: ","))
    }

    private static func gsv(_ satellites: [Satellite]) -> [String] {
        let pages = max(1, (satellites.count + 3) / 4)
        return (0..<pages).map { page in
            var fields = ["GPGSV", "\(pages)", "\(page + 1)", TextBytes.padded(satellites.count, width: 2)]
            for satellite in satellites.dropFirst(page * 4).prefix(4) {
                fields.append(TextBytes.padded(satellite.prn, width: 2))
                fields.append(satellite.elevation.map { TextBytes.padded(Int($0.rounded()), width: 2) } ?? "")
                fields.append(satellite.azimuth.map { TextBytes.padded(Int($0.rounded()), width: 3) } ?? "")
                fields.append(satellite.signalStrength.map { TextBytes.padded(Int($0.rounded()), width: 2) } ?? "")
            }
            return sentence(fields.joined(separator: ","))
        }
    }

    private static func geoidSeparation(_ fix: Location) -> Double {
        if let hae = fix.ellipsoidalAltitude, let msl = fix.altitude { return hae - msl }
        return defaultGeoidSeparation
    }

    /// `hhmmss.ss` and `ddmmyy` in UTC.
    private static func timeFields(_ time: Date) -> (String, String) {
        let text = RFC3339.string(from: time, fractionDigits: 2)  // 2024-05-01T10:00:00.25Z
        let characters = Array(text)
        let year = String(characters[2..<4])
        let month = String(characters[5..<7])
        let day = String(characters[8..<10])
        let clock = String(characters[11..<13]) + String(characters[14..<16]) + String(characters[17..<22])
        return (clock, day + month + year)
    }

    /// `ddmm.mmmmmm,N` (or `dddmm.mmmmmm,E` for longitude): GPSCore's, shared with the navigator's sentences.
    private static func coordinate(_ value: Double, degreesWidth: Int, positive: String, negative: String) -> String {
        NMEAFields.coordinate(value, degreesWidth: degreesWidth, positive: positive, negative: negative)
    }
}
