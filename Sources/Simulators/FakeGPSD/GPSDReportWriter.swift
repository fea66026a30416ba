import Foundation
import LocationFacade

/// Writes gpsd 3.22 JSON reports (TPV, SKY, DEVICE) the way gpsd formats them, for the fakes.
public enum GPSDReportWriter {
    /// gpsd's STATUS_SIM: how a fake says its fix is simulated.
    public static let simulatedStatus = 8

    /// A TPV report for `location`, without a newline. Coordinates get gpsd's nine decimals.
    /// A location marked `isSimulated` is sent with `"status":8` (gpsd's "simulated"), unless it has
    /// a status of its own.
    public static func tpv(_ location: Location, device: String?) -> String {
        var fields = [#""class":"TPV""#]
        if let device { fields.append(#""device":\#(quoted(device))"#) }
        if let status = location.status {
            fields.append(#""status":\#(status.gpsdStatus)"#)
        } else if location.isSimulated {
            fields.append(#""status":\#(simulatedStatus)"#)
        }
        fields.append(#""mode":\#(location.mode.gpsdMode)"#)
        if let time = location.time { fields.append(#""time":"\#(RFC3339.string(from: time))""#) }
        if location.mode >= .fix2D {
            fields.append(#""lat":\#(format("%.9f", location.latitude))"#)
            fields.append(#""lon":\#(format("%.9f", location.longitude))"#)
        }
        if location.mode == .fix3D {
            if let hae = location.ellipsoidalAltitude { fields.append(#""altHAE":\#(format("%.4f", hae))"#) }
            if let msl = location.altitude {
                fields.append(#""altMSL":\#(format("%.4f", msl))"#)
                fields.append(#""alt":\#(format("%.4f", msl))"#)
            }
            if let epv = location.verticalAccuracy { fields.append(#""epv":\#(format("%.3f", epv))"#) }
        }
        if let track = location.course { fields.append(#""track":\#(format("%.4f", track))"#) }
        if let speed = location.speed { fields.append(#""speed":\#(format("%.3f", speed))"#) }
        if location.mode == .fix3D, let climb = location.climb { fields.append(#""climb":\#(format("%.3f", climb))"#) }
        if let epd = location.courseAccuracy { fields.append(#""epd":\#(format("%.4f", epd))"#) }
        if let eps = location.speedAccuracy { fields.append(#""eps":\#(format("%.2f", eps))"#) }
        if let eph = location.horizontalAccuracy { fields.append(#""eph":\#(format("%.3f", eph))"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A TPV report saying there is no fix (mode 1).
    public static func noFix(device: String?, time: Date?) -> String {
        var fields = [#""class":"TPV""#]
        if let device { fields.append(#""device":\#(quoted(device))"#) }
        fields.append(#""mode":1"#)
        if let time { fields.append(#""time":"\#(RFC3339.string(from: time))""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A SKY report.
    public static func sky(_ report: SatelliteReport, device: String?) -> String {
        var fields = [#""class":"SKY""#]
        if let device = device ?? report.device { fields.append(#""device":\#(quoted(device))"#) }
        if let time = report.time { fields.append(#""time":"\#(RFC3339.string(from: time))""#) }
        let dops: [(String, Double?)] = [
            ("hdop", report.hdop), ("vdop", report.vdop), ("pdop", report.pdop), ("tdop", report.tdop), ("gdop", report.gdop),
        ]
        for (name, value) in dops {
            if let value { fields.append(#""\#(name)":\#(format("%.2f", value))"#) }
        }
        if !report.satellites.isEmpty {
            let satellites = report.satellites.map { satellite in
                var parts = [#""PRN":\#(satellite.prn)"#]
                if let elevation = satellite.elevation { parts.append(#""el":\#(format("%.1f", elevation))"#) }
                if let azimuth = satellite.azimuth { parts.append(#""az":\#(format("%.1f", azimuth))"#) }
                if let strength = satellite.signalStrength { parts.append(#""ss":\#(format("%.1f", strength))"#) }
                parts.append(#""used":\#(satellite.used)"#)
                return "{" + parts.joined(separator: ",") + "}"
            }
            fields.append(#""satellites":[\#(satellites.joined(separator: ","))]"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A DEVICE object as it appears in DEVICES and DEVICE reports.
    public static func device(path: String, driver: String, activated: Date?) -> String {
        var fields = [#""class":"DEVICE""#, #""path":\#(quoted(path))"#, #""driver":\#(quoted(driver))"#]
        if let activated { fields.append(#""activated":"\#(RFC3339.string(from: activated))""#) }
        fields.append(#""flags":1,"native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00"#)
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A JSON string literal.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private static func format(_ pattern: String, _ value: Double) -> String {
        String(format: pattern, value)
    }
}
