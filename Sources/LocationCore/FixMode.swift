/// How much of a position a fix carries: gpsd's TPV `mode`.
///
/// Ordered, so `mode >= .fix2D` reads as "has a position". Its JSON form is `"none"`, `"2d"` or `"3d"`.
public enum FixMode: String, Sendable, Hashable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    /// No position: the receiver has not got (or has lost) its fix. gpsd modes 0 and 1.
    case noFix = "none"
    /// Latitude and longitude, no altitude. gpsd mode 2.
    case fix2D = "2d"
    /// Latitude, longitude and altitude. gpsd mode 3.
    case fix3D = "3d"

    /// The mode for gpsd's numeric TPV `mode` (0 unseen, 1 no fix, 2, 3).
    public init(gpsdMode: Int) {
        switch gpsdMode {
        case 3...: self = .fix3D
        case 2: self = .fix2D
        default: self = .noFix
        }
    }

    /// gpsd's numeric form: 1, 2 or 3.
    public var gpsdMode: Int {
        switch self {
        case .noFix: 1
        case .fix2D: 2
        case .fix3D: 3
        }
    }

    public static func < (lhs: FixMode, rhs: FixMode) -> Bool {
        lhs.gpsdMode < rhs.gpsdMode
    }

    public var description: String {
        switch self {
        case .noFix: "no fix"
        case .fix2D: "2D"
        case .fix3D: "3D"
        }
    }
}

/// What kind of solution a fix is, where gpsd says: its TPV `status`.
///
/// gpsd 3.22 leaves `status` out of a plain GPS fix, so a `Location` from gpsd usually has no
/// status at all; these cases appear when the receiver reports more (DGPS, RTK) or less (time only).
public enum FixStatus: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A plain GPS (SPS) fix. gpsd status 1.
    case gps
    /// Differential GPS. gpsd status 2.
    case dgps
    /// RTK with fixed integers (centimetres). gpsd status 3.
    case rtkFixed = "rtk_fixed"
    /// RTK float solution (decimetres). gpsd status 4.
    case rtkFloat = "rtk_float"
    /// Dead reckoning only. gpsd status 5.
    case deadReckoning = "dead_reckoning"
    /// GNSS combined with dead reckoning. gpsd status 6.
    case gnssDeadReckoning = "gnss_dead_reckoning"
    /// Time only (a surveyed-in timing receiver). gpsd status 7.
    case timeOnly = "time_only"
    /// The receiver says this fix is simulated. gpsd status 8.
    case simulated
    /// Precise Positioning Service (military P(Y) code). gpsd status 9.
    case pps

    /// The status for gpsd's numeric TPV `status`; `nil` for 0 ("unknown") and values gpsd does not define.
    public init?(gpsdStatus: Int) {
        switch gpsdStatus {
        case 1: self = .gps
        case 2: self = .dgps
        case 3: self = .rtkFixed
        case 4: self = .rtkFloat
        case 5: self = .deadReckoning
        case 6: self = .gnssDeadReckoning
        case 7: self = .timeOnly
        case 8: self = .simulated
        case 9: self = .pps
        default: return nil
        }
    }

    /// gpsd's numeric form (1 to 9).
    public var gpsdStatus: Int {
        switch self {
        case .gps: 1
        case .dgps: 2
        case .rtkFixed: 3
        case .rtkFloat: 4
        case .deadReckoning: 5
        case .gnssDeadReckoning: 6
        case .timeOnly: 7
        case .simulated: 8
        case .pps: 9
        }
    }

    public var description: String {
        switch self {
        case .gps: "GPS"
        case .dgps: "DGPS"
        case .rtkFixed: "RTK fixed"
        case .rtkFloat: "RTK float"
        case .deadReckoning: "dead reckoning"
        case .gnssDeadReckoning: "GNSS + dead reckoning"
        case .timeOnly: "time only"
        case .simulated: "simulated"
        case .pps: "PPS"
        }
    }
}
