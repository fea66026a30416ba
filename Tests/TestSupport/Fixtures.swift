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
}
