#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the receiver says about the sky: gpsd's SKY report.
///
/// Counts are `nil` when the report carried no satellite list (gpsd sends DOP-only SKY reports
/// for some receivers); each dilution of precision is `nil` when not reported.
public struct SatelliteReport: Sendable, Hashable, Codable {
    /// The receiver that sent the report.
    public var device: String?
    /// The report's time, when the receiver gives one.
    public var time: Date?
    /// Satellites in view, or `nil` when the report had no satellite list.
    public var visibleCount: Int?
    /// Satellites used in the solution, or `nil` when the report had no satellite list.
    public var usedCount: Int?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Vertical dilution of precision.
    public var vdop: Double?
    /// Position (3D) dilution of precision.
    public var pdop: Double?
    /// Time dilution of precision.
    public var tdop: Double?
    /// Geometric dilution of precision.
    public var gdop: Double?
    /// The satellites themselves, in the order gpsd listed them.
    public var satellites: [Satellite]

    public init(
        device: String? = nil, time: Date? = nil, visibleCount: Int? = nil, usedCount: Int? = nil,
        hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil, tdop: Double? = nil, gdop: Double? = nil,
        satellites: [Satellite] = []
    ) {
        self.device = device
        self.time = time
        self.visibleCount = visibleCount
        self.usedCount = usedCount
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.tdop = tdop
        self.gdop = gdop
        self.satellites = satellites
    }
}

/// One satellite in a ``SatelliteReport``.
public struct Satellite: Sendable, Hashable, Codable {
    /// The PRN as gpsd numbers it (NMEA 2.x to 4.0 numbering).
    public var prn: Int
    /// Elevation in degrees, or `nil` when unknown.
    public var elevation: Double?
    /// Azimuth in degrees from true north, or `nil` when unknown.
    public var azimuth: Double?
    /// Signal strength in dBHz, or `nil` when unknown.
    public var signalStrength: Double?
    /// Whether the receiver used it in the fix.
    public var used: Bool

    public init(prn: Int, elevation: Double? = nil, azimuth: Double? = nil, signalStrength: Double? = nil, used: Bool) {
        self.prn = prn
        self.elevation = elevation
        self.azimuth = azimuth
        self.signalStrength = signalStrength
        self.used = used
    }
}

/// A receiver gpsd knows about: an entry of its DEVICES report, or a DEVICE notification.
public struct GPSDevice: Sendable, Hashable, Codable {
    /// The device path, such as `/dev/ttyUSB0`.
    public var path: String
    /// The driver gpsd chose, such as `NMEA0183` or `u-blox`; `nil` before it has identified the device.
    public var driver: String?
    /// When gpsd activated the device; `nil` when it has been deactivated (unplugged, or no data).
    public var activated: Date?
    /// Serial speed in bits per second, where it applies.
    public var baudRate: Int?

    /// Whether gpsd currently reads the device.
    public var isActive: Bool { activated != nil }

    public init(path: String, driver: String? = nil, activated: Date? = nil, baudRate: Int? = nil) {
        self.path = path
        self.driver = driver
        self.activated = activated
        self.baudRate = baudRate
    }
}
