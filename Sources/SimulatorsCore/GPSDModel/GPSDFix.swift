#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What gpsd 3.22 holds of a fix (its `struct gps_fix_t`) as the sentences of a reporting cycle
/// and its error model make it: what it reports in a TPV. `nil` is gpsd's NaN, "not known".
///
/// The fakes build it the way gpsd does (``NMEACycleReader``, ``GPSDErrorModel``), so that an
/// in-process replay of an NMEA log reports what a ``GPSDClient`` reading real gpsd would.
struct GPSDFix: Sendable, Hashable {
    /// `nil` until a sentence with a usable date and time says.
    var time: GPSDTime?
    var latitude: Double?
    var longitude: Double?
    /// gpsd's mode: 0 not seen, 1 no fix, 2 2D, 3 3D.
    var mode = 0
    /// gpsd's status: 0 no fix, 1 GPS, 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning,
    /// 6 GNSS and dead reckoning, 7 time only (surveyed), 8 simulated, 9 PPS.
    var status = 0
    /// Metres above mean sea level (`altMSL`).
    var altitude: Double?
    /// Metres above the WGS84 ellipsoid (`altHAE`).
    var ellipsoidalAltitude: Double?
    /// Metres of the geoid above the ellipsoid (`geoidSep`).
    var geoidSeparation: Double?
    /// Metres per second.
    var speed: Double?
    /// Degrees from true north (`track`).
    var course: Double?
    /// Metres per second, upwards.
    var climb: Double?
    /// gpsd's error estimates (95 % confidence): seconds for `ept`, metres for `epx`, `epy`,
    /// `epv`, `eph` and `sep`, metres per second for `eps` and `epc`, degrees for `epd`.
    var ept: Double?
    var epx: Double?
    var epy: Double?
    var epv: Double?
    var eph: Double?
    var sep: Double?
    var eps: Double?
    var epd: Double?
    var epc: Double?

    /// Whether it has a height, above either datum (gpsd's test before it keeps a 3D mode).
    var hasAltitude: Bool {
        altitude != nil || ellipsoidalAltitude != nil
    }
}

/// Dilutions of precision as gpsd holds them for a receiver (its `struct dop_t`): reported by
/// the receiver (GSA, GGA, GNS) or worked out from the satellites' directions. They last from
/// one cycle to the next until replaced.
struct GPSDDilutions: Sendable, Hashable {
    var x: Double?
    var y: Double?
    var horizontal: Double?
    var vertical: Double?
    var position: Double?
    var time: Double?
    var geometric: Double?
}

/// A time as gpsd holds it (a `timespec`): whole seconds since 1970 and nanoseconds, so that the
/// intervals it works out (0.1 s between two fixes at 10 Hz) are exact, as gpsd's are.
struct GPSDTime: Sendable, Hashable {
    var seconds: Int
    var nanoseconds: Int

    /// The seconds from `earlier` to `later`, as gpsd's `TS_SUB_D` works them out.
    static func - (later: GPSDTime, earlier: GPSDTime) -> Double {
        Double(later.seconds - earlier.seconds) + Double(later.nanoseconds - earlier.nanoseconds) * 1e-9
    }

    /// The same time as a `Date`, to the millisecond (rounded), as gpsd writes it.
    var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double((nanoseconds + 500_000) / 1_000_000) / 1000)
    }

    /// Seconds since the start of the day, UTC.
    var timeOfDay: Double {
        Double(seconds - seconds / 86_400 * 86_400) + Double(nanoseconds) / 1e9
    }
}
