import Foundation
import LocationFacade
import Simulators

/// How our own fixtures are made.
public enum Fixtures {
    /// A walk from Greenwich that exercises the fix states: a cold start without a fix, 3D, a
    /// stretch of 2D (no altitude), the fix lost for a while, and 3D again.
    public static func greenwichWalk() -> (nmea: String, fixes: [Location]) {
        let track = SyntheticTrack.generate(count: 110, seed: 2024)
        var text = ""
        var fixes: [Location] = []
        let coldStart = 6
        for second in 0..<coldStart {
            let time = SyntheticTrack.defaultStartTime.addingTimeInterval(Double(second - coldStart))
            text += NMEAEncoder.noFixEpoch(at: time, satellites: Array(NMEAEncoder.defaultSky.prefix(3))).joined()
        }
        for (index, var fix) in track.enumerated() {
            switch index {
            case 60..<72:
                fix.mode = .fix2D
                fix.altitude = nil
                fix.ellipsoidalAltitude = nil
                fix.climb = nil
            case 72..<76:
                text += NMEAEncoder.noFixEpoch(at: fix.time!).joined()
                continue
            default:
                break
            }
            text += NMEAEncoder.epoch(for: fix).joined()
            fixes.append(fix)
        }
        return (text, fixes)
    }

    /// The walk's fixes as a GPX 1.1 track, with one segment per stretch of fix (the lost fix
    /// splits it in two) and no elevation on the 2D points.
    public static func greenwichWalkGPX() -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="swift-gps-facade Fixtures.greenwichWalkGPX" xmlns="http://www.topografix.com/GPX/1/1">
              <trk>
                <name>Greenwich walk</name>
                <type>walking</type>
                <trkseg>

            """
        var previous: Date?
        for fix in greenwichWalk().fixes {
            if let previous, let time = fix.time, time.timeIntervalSince(previous) > 1 {
                text += "    </trkseg>\n    <trkseg>\n"
            }
            previous = fix.time
            text += "      <trkpt lat=\"\(fix.latitude)\" lon=\"\(fix.longitude)\">"
            if fix.mode == .fix3D, let altitude = fix.altitude { text += "<ele>\(altitude)</ele>" }
            text += "<time>\(RFC3339.string(from: fix.time!, fractionDigits: 0))</time></trkpt>\n"
        }
        text += "    </trkseg>\n  </trk>\n</gpx>\n"
        return text
    }
}
