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

/// Writes gpsd 3.22 JSON reports (TPV, SKY, DEVICE) the way gpsd formats them, for the fakes.
public enum GPSDReportWriter {
    /// gpsd's STATUS_SIM: how a fake says its fix is simulated.
    public static let simulatedStatus = 8

    /// A TPV report for `location`, without a newline, its fields in gpsd's order. Coordinates get
    /// gpsd's nine decimals. A location marked `isSimulated` is sent with `"status":8` (gpsd's
    /// "simulated"), unless it has a status of its own.
    ///
    /// With a `receiver`, what the location does not say is said as gpsd 3.22 says it for that
    /// receiver (see ``SimulatedReceiver``): the height above the ellipsoid and the geoid's
    /// separation, `ept`, `epx`, `epy`, `eph`, `epv`, `sep` and `eps`. Without one, only what the
    /// location holds is sent.
    public static func tpv(_ location: Location, device: String?, receiver: SimulatedReceiver? = nil) -> String {
        var fields = [#""class":"TPV""#]
        if let device { fields.append(#""device":\#(quoted(device))"#) }
        if let status = location.status {
            fields.append(#""status":\#(status.gpsdStatus)"#)
        } else if location.isSimulated {
            fields.append(#""status":\#(simulatedStatus)"#)
        }
        fields.append(#""mode":\#(location.mode.gpsdMode)"#)
        if let time = location.time { fields.append(#""time":"\#(RFC3339.string(from: time))""#) }
        let errors = receiver.map(\.errors)
        if let errors, location.time != nil { fields.append(#""ept":\#(fixed(errors.ept, 3))"#) }
        if location.mode >= .fix2D {
            fields.append(#""lat":\#(fixed(location.latitude, 9))"#)
            fields.append(#""lon":\#(fixed(location.longitude, 9))"#)
        }
        var separation: Double?
        if location.mode == .fix3D {
            var (hae, msl) = (location.ellipsoidalAltitude, location.altitude)
            if let receiver {
                separation = hae.flatMap { hae in msl.map { hae - $0 } } ?? receiver.geoidSeparation
                hae = hae ?? msl.map { $0 + receiver.geoidSeparation }
                msl = msl ?? hae.map { $0 - receiver.geoidSeparation }
            }
            if let hae { fields.append(#""altHAE":\#(fixed(hae, 4))"#) }
            if let msl {
                fields.append(#""altMSL":\#(fixed(msl, 4))"#)
                fields.append(#""alt":\#(fixed(msl, 4))"#)
            }
        }
        if location.mode >= .fix2D, location.horizontalAccuracy == nil, let errors {
            if let epx = errors.epx { fields.append(#""epx":\#(fixed(epx, 3))"#) }
            if let epy = errors.epy { fields.append(#""epy":\#(fixed(epy, 3))"#) }
        }
        if location.mode == .fix3D, let epv = location.verticalAccuracy ?? errors?.epv { fields.append(#""epv":\#(fixed(epv, 3))"#) }
        if let track = location.course { fields.append(#""track":\#(fixed(track, 4))"#) }
        if let speed = location.speed { fields.append(#""speed":\#(fixed(speed, 3))"#) }
        if location.mode == .fix3D, let climb = location.climb { fields.append(#""climb":\#(fixed(climb, 3))"#) }
        if let epd = location.courseAccuracy { fields.append(#""epd":\#(fixed(epd, 4))"#) }
        if location.mode >= .fix2D, let eps = location.speedAccuracy ?? errors?.eps { fields.append(#""eps":\#(fixed(eps, 2))"#) }
        if let separation { fields.append(#""geoidSep":\#(fixed(separation, 3))"#) }
        if location.mode >= .fix2D, let eph = location.horizontalAccuracy ?? errors?.eph { fields.append(#""eph":\#(fixed(eph, 3))"#) }
        if location.mode == .fix3D, let errors { fields.append(#""sep":\#(fixed(errors.sep, 3))"#) }
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
            if let value { fields.append(#""\#(name)":\#(fixed(value, 2))"#) }
        }
        if !report.satellites.isEmpty {
            let satellites = report.satellites.map { satellite in
                var parts = [#""PRN":\#(satellite.prn)"#]
                if let elevation = satellite.elevation { parts.append(#""el":\#(fixed(elevation, 1))"#) }
                if let azimuth = satellite.azimuth { parts.append(#""az":\#(fixed(azimuth, 1))"#) }
                if let strength = satellite.signalStrength { parts.append(#""ss":\#(fixed(strength, 1))"#) }
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

    /// A JSON string literal (`TextBytes/appendJSONString(_:to:)`).
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        TextBytes.appendJSONString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` with `decimals` places, as gpsd's `%.Nf` writes it.
    private static func fixed(_ value: Double, _ decimals: Int) -> String {
        TextBytes.fixed(value, decimals: decimals)
    }
}
