#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What gpsd 3.22 works out for a fix after each sentence it reads (`gpsd_error_model` in
/// `libgpsd_core.c`, rewritten here from its description): the error estimates from the
/// dilutions of precision, the speed and climb from the fix before when the receiver gives
/// none, the geoid's separation and the height over the other datum.
///
/// gpsd's model, in its own terms (95 % confidence):
///
/// - A user equivalent range error (UERE) of 15 m horizontally per axis, 23 m vertically and
///   19 m in 3D; a quarter of each with DGPS (status 2). `epx` and `epy` are XDOP and YDOP times
///   the horizontal one, `epv` VDOP times the vertical one (3D fixes only), `eph` HDOP and `sep`
///   PDOP times the 3D one. `eph`, `epv` and `sep` are set once a cycle (by the first sentence
///   after which the dilution is known); `epx` and `epy` follow the latest XDOP and YDOP.
/// - `ept` is 0.005 s for any fix with a time.
/// - With a fix of an earlier time (more than 10 ms before) that was at least 2D: the speed, when
///   the receiver gave none, is the distance between the two (Vincenty, on the WGS84 ellipsoid)
///   over the time between them; the climb, likewise, from the heights above the ellipsoid of
///   two 3D fixes; `eps` is the larger of `epx` and `epy` of both fixes over that time, `epc` the
///   sum of their `epv`s over it; `epd` is the angle the new fix's larger horizontal error
///   subtends seen from the old fix, when the fix has moved farther than that error.
/// - A speed or climb faster than 9,999.9 m/s is dropped; a course is put in 0..<360.
/// - The geoid's separation, when no sentence gave it, comes from ``GeoidSeparation``, and
///   gives the height above the ellipsoid from the one above sea level, or the other way round.
///
/// C's comparisons of NaN are kept where they decide something: the larger of a known and an
/// unknown error is the unknown one when the unknown one comes second, as gpsd's `EMAX` has it.
struct GPSDErrorModel: Sendable {
    /// gpsd's `lastfix`: the fix after the last sentence that had a time.
    private(set) var lastFix = GPSDFix()
    /// gpsd's `oldfix`: the last fix of an earlier time (more than 10 ms before `lastFix`).
    private(set) var oldFix = GPSDFix()

    /// User equivalent range errors, metres, without and with DGPS.
    static let horizontalUERE = (plain: 15.0, differential: 3.75)
    static let verticalUERE = (plain: 23.0, differential: 5.75)
    static let positionUERE = (plain: 19.0, differential: 4.75)
    /// gpsd's time error for any fix with a time, seconds.
    static let timeError = 0.005
    /// gpsd's time of a fix that has none (zero).
    static let noTime = GPSDTime(seconds: 0, nanoseconds: 0)
    /// Speeds and climbs beyond this (m/s) are taken for noise.
    static let fastest = 9_999.9

    /// Completes `fix` (the cycle's fix, just merged with a sentence's data `sentence`) as gpsd
    /// does, with the dilutions it holds, and remembers it for the next sentence.
    mutating func complete(_ fix: inout GPSDFix, sentence: GPSDFix, dilutions: GPSDDilutions) {
        var elapsed = -1.0
        if let time = fix.time, time.seconds > 0 {
            elapsed = time - (lastFix.time ?? Self.noTime)
            if abs(elapsed) > 0.0099 {
                oldFix = lastFix
            } else {
                elapsed = time - (oldFix.time ?? Self.noTime)
            }
        }
        let differential = fix.status == 2
        let horizontalUERE = differential ? Self.horizontalUERE.differential : Self.horizontalUERE.plain
        let verticalUERE = differential ? Self.verticalUERE.differential : Self.verticalUERE.plain
        let positionUERE = differential ? Self.positionUERE.differential : Self.positionUERE.plain

        if let speed = fix.speed, abs(speed) > Self.fastest { fix.speed = nil }
        if let climb = fix.climb, abs(climb) > Self.fastest { fix.climb = nil }
        if let latitude = fix.latitude, let longitude = fix.longitude, fix.geoidSeparation == nil {
            fix.geoidSeparation = GeoidSeparation.at(latitude: latitude, longitude: longitude)
        }
        if var course = fix.course {
            if course < 0 { course += 360 } else if course >= 360 { course -= 360 }  // once, as gpsd's DEG_NORM
            fix.course = course
        }
        if let separation = fix.geoidSeparation {
            if let ellipsoidal = fix.ellipsoidalAltitude, fix.altitude == nil {
                fix.altitude = ellipsoidal - separation
            } else if fix.ellipsoidalAltitude == nil, let altitude = fix.altitude {
                fix.ellipsoidalAltitude = altitude + separation
            }
        }

        let old = oldFix
        if elapsed > 0, fix.mode >= 2, old.mode >= 2 {
            if fix.speed == nil {
                fix.speed = Self.known(Self.distance(fix, old) / elapsed).flatMap { abs($0) > Self.fastest ? nil : $0 }
            }
            if fix.mode >= 3, old.mode >= 3, fix.climb == nil, let height = fix.ellipsoidalAltitude, let oldHeight = old.ellipsoidalAltitude {
                fix.climb = Self.known((height - oldHeight) / elapsed).flatMap { abs($0) > Self.fastest ? nil : $0 }
            }
        }
        if let time = fix.time, time.seconds > 0, fix.ept == nil { fix.ept = Self.timeError }

        guard fix.mode >= 2 else { return remember(fix) }
        if sentence.epx == nil, let xdop = dilutions.x { fix.epx = xdop * horizontalUERE }
        if sentence.epy == nil, let ydop = dilutions.y { fix.epy = ydop * horizontalUERE }
        if fix.mode >= 3, fix.epv == nil, let vdop = dilutions.vertical { fix.epv = vdop * verticalUERE }
        if fix.eph == nil, let hdop = dilutions.horizontal { fix.eph = hdop * positionUERE }
        if fix.sep == nil, let pdop = dilutions.position { fix.sep = pdop * positionUERE }
        if elapsed > 0, old.mode >= 2 {
            if sentence.eps == nil, old.epx != nil, old.epy != nil {
                fix.eps = Self.known((Self.larger(old.epx, old.epy) + Self.larger(fix.epx, fix.epy)) / elapsed)
            }
            if fix.epd == nil {
                // The angle fix's larger horizontal error subtends, seen from the old fix, when the
                // fix moved farther than that error (nearer, the angle means nothing).
                let adjacent = Self.distance(old, fix)
                let opposite = Self.larger(fix.epx, fix.epy)
                if adjacent.isFinite, adjacent > opposite {
                    let hypotenuse = (adjacent * adjacent + opposite * opposite).squareRoot()
                    fix.epd = Self.known(2 * asin(opposite / hypotenuse) * 180 / .pi)
                }
            }
            if sentence.epc == nil, let epv = fix.epv, let oldEPV = old.epv {
                fix.epc = Self.known((oldEPV + epv) / elapsed)
            }
        }
        remember(fix)
    }

    private mutating func remember(_ fix: GPSDFix) {
        if let time = fix.time, time.seconds > 0 { lastFix = fix }
    }

    /// `value` when it is a number, `nil` for NaN and infinities.
    static func known(_ value: Double) -> Double? {
        value.isFinite ? value : nil
    }

    /// C's `x > y ? x : y` with NaN for "unknown", as gpsd's `EMAX`: unknown whenever `y` is,
    /// and `y` whenever `x` is unknown (the order matters).
    static func larger(_ x: Double?, _ y: Double?) -> Double {
        let (x, y) = (x ?? .nan, y ?? .nan)
        return x > y ? x : y
    }

    /// The distance in metres between two fixes' positions on the WGS84 ellipsoid; NaN when
    /// either has none.
    static func distance(_ a: GPSDFix, _ b: GPSDFix) -> Double {
        guard let latitude1 = a.latitude, let longitude1 = a.longitude, let latitude2 = b.latitude, let longitude2 = b.longitude else {
            return .nan
        }
        return Vincenty.distance(latitude1, longitude1, latitude2, longitude2)
    }
}
