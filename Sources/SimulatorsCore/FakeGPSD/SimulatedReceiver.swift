#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// The receiver the simulators pretend to be: the sky and dilutions of precision that
/// ``NMEAEncoder`` writes, and the error estimates gpsd 3.22 makes from them. A replay's fix that
/// does not carry its own accuracy or ellipsoidal height gets these, so the fake gpsd sends what
/// real gpsd sends for the same track read from the simulated receiver's NMEA (`locate replay
/// --via-gpsd`): `altHAE`, `geoidSep`, `epx`, `epy`, `eph`, `epv`, `sep`, `eps`, `ept`.
///
/// gpsd's error model (no DGPS): a horizontal user range error of 15 m for `epx`/`epy`, 19 m for
/// `eph` and `sep`, 23 m for `epv`; `eps` twice the larger of `epx` and `epy`. gpsd takes HDOP,
/// VDOP and PDOP from GSA, and works out XDOP and YDOP from the satellites' directions.
public struct SimulatedReceiver: Sendable, Hashable {
    public var satellites: [Satellite]
    public var hdop: Double
    public var vdop: Double
    public var pdop: Double
    /// Metres of the geoid above the ellipsoid, written in GGA.
    public var geoidSeparation: Double

    /// NMEAEncoder's receiver: its sky, HDOP 0.9, VDOP 1.3, PDOP 1.6, a geoid 45.6 m up (Greenwich).
    public static let `default` = SimulatedReceiver(
        satellites: NMEAEncoder.defaultSky, hdop: 0.9, vdop: 1.3, pdop: 1.6,
        geoidSeparation: NMEAEncoder.defaultGeoidSeparation)

    public init(satellites: [Satellite], hdop: Double, vdop: Double, pdop: Double, geoidSeparation: Double) {
        self.satellites = satellites
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.geoidSeparation = geoidSeparation
    }

    /// The estimated errors, in metres, gpsd reports for a fix of this receiver.
    public struct Errors: Sendable, Hashable {
        public var epx: Double?
        public var epy: Double?
        public var eph: Double
        public var epv: Double
        public var sep: Double
        public var eps: Double?
        /// gpsd's time error for an NMEA receiver (0.005 s).
        public var ept: Double
    }

    public var errors: Errors {
        let (xdop, ydop) = Self.horizontalDilutions(of: satellites.filter(\.used))
        let epx = xdop.map { $0 * 15 }
        let epy = ydop.map { $0 * 15 }
        let eps = epx.flatMap { epx in epy.map { 2 * max(epx, $0) } }
        return Errors(epx: epx, epy: epy, eph: hdop * 19, epv: vdop * 23, sep: pdop * 19, eps: eps, ept: 0.005)
    }

    /// XDOP and YDOP of the satellites' geometry, as gpsd works them out (``GPSDSky``'s
    /// `fillDilutions`); `nil` with fewer than four satellites or a singular geometry.
    static func horizontalDilutions(of used: [Satellite]) -> (Double?, Double?) {
        var sky = GPSDSky()
        sky.satellites = used.map { satellite in
            GPSDSky.Satellite(
                prn: satellite.prn, elevation: satellite.elevation, azimuth: satellite.azimuth,
                signalStrength: satellite.signalStrength, used: true)
        }
        var dilutions = GPSDDilutions()
        sky.fillDilutions(&dilutions)
        return (dilutions.x, dilutions.y)
    }
}
