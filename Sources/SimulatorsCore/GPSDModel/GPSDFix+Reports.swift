#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationCore

extension GPSDFix {
    /// The time as gpsd writes it: to the millisecond, rounded.
    var reportedTime: Date? {
        guard let time, time.seconds > 0 else { return nil }
        return time.date
    }

    /// The location a ``GPSDClient`` makes of gpsd's TPV for this fix: each value rounded as gpsd
    /// writes it, the heights, climb and vertical error of a 3D fix only, the horizontal error
    /// `eph` (else `epx` and `epy` combined), the status when gpsd writes one (DGPS and up: it
    /// leaves out "no fix" and "GPS"). `nil` when the fix has no position or a mode under 2D.
    func location(device: String?, receivedAt: Date) -> Location? {
        guard mode >= 2, let latitude, let longitude else { return nil }
        func rounded(_ value: Double?, _ decimals: Int) -> Double? {
            value.map { GPSDRounding.round($0, decimals) }
        }
        let is3D = mode == 3
        let horizontal = rounded(eph, 3) ?? rounded(epx, 3).flatMap { x in rounded(epy, 3).map { y in (x * x + y * y).squareRoot() } }
        let heights = (msl: rounded(altitude, 4), hae: rounded(ellipsoidalAltitude, 4))
        let meanSeaLevel = heights.msl ?? heights.hae.flatMap { hae in rounded(geoidSeparation, 3).map { hae - $0 } }
        return Location(
            latitude: GPSDRounding.round(latitude, 9), longitude: GPSDRounding.round(longitude, 9),
            altitude: is3D ? meanSeaLevel : nil,
            ellipsoidalAltitude: is3D ? heights.hae : nil,
            horizontalAccuracy: horizontal,
            verticalAccuracy: is3D ? rounded(epv, 3) : nil,
            speed: rounded(speed, 3), speedAccuracy: rounded(eps, 2),
            course: rounded(course, 4), courseAccuracy: rounded(epd, 4),
            climb: is3D ? rounded(climb, 3) : nil,
            time: reportedTime, receivedAt: receivedAt,
            mode: FixMode(gpsdMode: mode),
            status: status >= 2 ? FixStatus(gpsdStatus: status) : nil,
            device: device,
            isSimulated: status == 8)
    }
}

extension GPSDReportWriter {
    /// The TPV gpsd 3.22 writes for `fix` (`json_tpv_dump`), without a newline: its fields in
    /// gpsd's order and precision. gpsd's magnetic variation (`magvar`, `magtrack`, from a model
    /// of its own) is left out. `markingSimulated` gives a fix without a status of DGPS or better
    /// gpsd's "simulated" (8), as a fake says what it serves is.
    static func tpv(_ fix: GPSDFix, device: String?, markingSimulated: Bool = false) -> String {
        var fields = [#""class":"TPV""#]
        if let device { fields.append(#""device":\#(quoted(device))"#) }
        let status = fix.status < 2 && markingSimulated ? simulatedStatus : fix.status
        if status >= 2 { fields.append(#""status":\#(status)"#) }
        fields.append(#""mode":\#(fix.mode)"#)
        if let time = fix.reportedTime {
            fields.append(#""time":"\#(RFC3339.string(from: time, fractionDigits: 3))""#)
            if let ept = fix.ept { fields.append(#""ept":\#(TextBytes.fixed(ept, decimals: 3))"#) }
        }
        if fix.mode >= 2 {
            func add(_ name: String, _ value: Double?, _ decimals: Int) {
                if let value { fields.append(#""\#(name)":\#(TextBytes.fixed(value, decimals: decimals))"#) }
            }
            add("lat", fix.latitude, 9)
            add("lon", fix.longitude, 9)
            add("altHAE", fix.ellipsoidalAltitude, 4)
            add("altMSL", fix.altitude, 4)
            add("alt", fix.altitude ?? fix.ellipsoidalAltitude, 4)
            add("epx", fix.epx, 3)
            add("epy", fix.epy, 3)
            add("epv", fix.epv, 3)
            add("track", fix.course, 4)
            add("speed", fix.speed, 3)
            if fix.mode >= 3 { add("climb", fix.climb, 3) }
            add("epd", fix.epd, 4)
            add("eps", fix.eps, 2)
            if fix.mode >= 3 {
                add("epc", fix.epc, 2)
                add("geoidSep", fix.geoidSeparation, 3)
            }
            add("eph", fix.eph, 3)
            add("sep", fix.sep, 3)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The SKY gpsd 3.22 writes for `sky` and `dilutions` (`json_sky_dump`), without a newline.
    static func sky(_ sky: GPSDSky, dilutions: GPSDDilutions, device: String?) -> String {
        var fields = [#""class":"SKY""#]
        if let device { fields.append(#""device":\#(quoted(device))"#) }
        let dops: [(String, Double?)] = [
            ("xdop", dilutions.x), ("ydop", dilutions.y), ("vdop", dilutions.vertical), ("tdop", dilutions.time),
            ("hdop", dilutions.horizontal), ("gdop", dilutions.geometric), ("pdop", dilutions.position),
        ]
        for case let (name, value?) in dops { fields.append(#""\#(name)":\#(TextBytes.fixed(value, decimals: 2))"#) }
        // gpsd counts every satellite with a PRN, and lists as many places from the front.
        let numbered = sky.satellites.filter { $0.prn != 0 }
        fields.append(#""nSat":\#(numbered.count),"uSat":\#(numbered.count { $0.used })"#)
        let listed = sky.reported
        if !listed.isEmpty {
            let satellites = listed.map { satellite in
                var parts = [#""PRN":\#(satellite.prn)"#]
                if let elevation = satellite.elevation, abs(elevation) <= 90 {
                    parts.append(#""el":\#(TextBytes.fixed(elevation, decimals: 1))"#)
                }
                if let azimuth = satellite.azimuth, (0...359).contains(abs(azimuth)) {
                    parts.append(#""az":\#(TextBytes.fixed(azimuth, decimals: 1))"#)
                }
                if let strength = satellite.signalStrength { parts.append(#""ss":\#(TextBytes.fixed(strength, decimals: 1))"#) }
                parts.append(#""used":\#(satellite.used)"#)
                if satellite.number != 0 { parts.append(#""gnssid":\#(satellite.gnss),"svid":\#(satellite.number)"#) }
                if satellite.signal != 0 { parts.append(#""sigid":\#(satellite.signal)"#) }
                return "{" + parts.joined(separator: ",") + "}"
            }
            fields.append(#""satellites":[\#(satellites.joined(separator: ","))]"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
