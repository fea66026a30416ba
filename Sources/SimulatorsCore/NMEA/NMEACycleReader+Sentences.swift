#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

// The sentences NMEACycleReader reads, as gpsd 3.22's `driver_nmea0183.c` reads them: each sets
// some fields of the cycle's fix (`new`) and says which (`changes`), and registers its time of day.
extension NMEACycleReader {
    // MARK: - Sentences

    /// `$--GGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,q,nn,h.h,alt,M,sep,M,age,station`
    mutating func gga(
        _ s: NMEASentence, _ new: inout GPSDFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        let previousTalker = lastGGATalker
        lastGGATalker = Self.talkerLetter(s)
        let quality = s[6].isEmpty ? -1 : Self.integer(s[6])
        if quality == 0, s[1].isEmpty {
            forgetDate()  // a receiver without a fix that sends no time (`$GPGGA,,,,,,0,,,,,,,,`)
            cycleEndReliable = false
        }
        if let status = Self.status(ofQuality: quality) {
            new.status = status
            changes.insert(.status)
        }
        // A GGA whose time has not moved on (a receiver that lost lock and repeats itself): gpsd
        // then distrusts the GSA that follows. Two talkers' GGAs in one cycle are not that.
        if previousTalker != 0 && previousTalker != lastGGATalker {
            ggaTimestampRepeats = false
        } else {
            ggaTimestampRepeats = s[1] == lastGGATimestamp
        }
        if ggaTimestampRepeats {
            new.status = 0
            new.mode = 1
            changes.formUnion([.mode, .status])
        } else {
            lastGGATimestamp = s[1]
        }
        let satellites = Self.integer(s[7])
        if !s[1].isEmpty, mergeTimeOfDay(s[1]) {
            register(s[1])
            if year != 0 { changes.insert(.time) }
        }
        if let (latitude, longitude) = Self.position(s, at: 2) {
            new.latitude = latitude
            new.longitude = longitude
            new.mode = 2
            changes.insert(.position)
            new.geoidSeparation = s[11].isEmpty ? GeoidSeparation.at(latitude: latitude, longitude: longitude) : Self.number(s[11])
            if !s[9].isEmpty {
                new.altitude = Self.number(s[9])
                changes.insert(.altitude)
                if satellites >= 4 { new.mode = 3 }
            }
            if satellites < 3 { new.mode = 1 }
        } else {
            new.mode = 1
        }
        changes.insert(.mode)
        if !s[8].isEmpty { dilutions.horizontal = Self.number(s[8]) }
    }

    /// gpsd's status for a GGA's fix quality: 0 none, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed,
    /// 5 RTK float, 6 dead reckoning, 7 manual (time only), 8 simulated; `nil` when missing or other.
    static func status(ofQuality quality: Int) -> Int? {
        switch quality {
        case 0: 0
        case 1: 1
        case 2: 2
        case 3: 9
        case 4: 3
        case 5: 4
        case 6: 5
        case 7: 7
        case 8: 8
        default: nil
        }
    }

    /// gpsd's status for an FAA mode indicator (RMC, GLL, GNS): A autonomous, D differential (and
    /// P precise), E dead reckoning, F and R RTK float and fixed; none for N, S, C, U or missing.
    static func status(ofFAAMode mode: Character?) -> Int {
        switch mode {
        case nil, "N", "C", "S", "U": 0
        case "D", "P": 2
        case "E": 5
        case "F": 4
        case "R": 3
        default: 1
        }
    }

    /// `$--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,knots,course,ddmmyy,var,E,faa`
    mutating func rmc(
        _ s: NMEASentence, count: Int, _ new: inout GPSDFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        let status = s[2].first
        guard status == "A" || status == "D" else {
            new.mode = 1
            if s[1].isEmpty || s[9].isEmpty {
                // No time (`$GPRMC,,V,,,,,,,,,,N`): gpsd forgets the date and reports at once.
                forgetDate()
                cycleEndReliable = false
                changes.formUnion([.time, .report])
            }
            changes.formUnion([.mode, .status])
            return
        }
        if !s[1].isEmpty, count > 9, !s[9].isEmpty, mergeTimeOfDay(s[1]), mergeDate(s[9]) {
            changes.insert(.time)
            register(s[1])
        }
        var newStatus = 0
        if let (latitude, longitude) = Self.position(s, at: 3) {
            new.latitude = latitude
            new.longitude = longitude
            changes.insert(.position)
            newStatus = status == "D" ? 2 : 1
            if lastFix.mode <= 2 {
                new.mode = 2
                changes.insert(.mode)
            } else if lastFix.mode == 3 {
                new.mode = 3  // the last fix was 3D: this may be the cycle's first sentence
                changes.insert(.mode)
            }
        } else {
            new.mode = 1
            changes.insert(.mode)
        }
        if !s[7].isEmpty {
            new.speed = Self.number(s[7]).map { $0 * Self.knotsToMetresPerSecond }
            changes.insert(.speed)
        }
        if !s[8].isEmpty {
            new.course = Self.number(s[8])
            changes.insert(.course)
        }
        if count >= 12 { newStatus = Self.status(ofFAAMode: s[12].first) }
        // A receiver that sends RMC alone (a Magellan EC-10X) says 3D by its satellites or a height.
        if satellitesUsed.count > 3 || fix.hasAltitude {
            new.mode = 3
            changes.insert(.mode)
        }
        new.status = newStatus
        changes.insert(.status)
    }

    /// gpsd's knots to metres per second (1.852 km/h / 3.6, as gpsd divides it).
    static let knotsToMetresPerSecond = 1.852 / 3.6

    /// `$--GLL,llll.ll,a,yyyyy.yy,a,hhmmss.ss,A,faa`
    mutating func gll(
        _ s: NMEASentence, count: Int, _ new: inout GPSDFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        if !s[5].isEmpty, mergeTimeOfDay(s[5]) {
            register(s[5])
            if year != 0 { changes.insert(.time) }
        }
        if s[6].first == "A", count < 8 || s[7].first != "N", let (latitude, longitude) = Self.position(s, at: 1) {
            new.latitude = latitude
            new.longitude = longitude
            changes.insert(.position)
            new.status = count >= 8 ? Self.status(ofFAAMode: s[7].first) : 1
            if fix.hasAltitude || satellitesUsed.count > 3 {
                new.mode = 3
            } else if fix.mode < 2 || !oldFix.hasAltitude {
                new.mode = 2
            }
        } else {
            new.status = 0
            new.mode = 1
        }
        changes.formUnion([.mode, .status])
    }

    /// `$--GNS,hhmmss.ss,llll.ll,a,yyyyy.yy,a,modes,nn,h.h,alt,sep,age,station,navstatus`
    mutating func gns(
        _ s: NMEASentence, _ new: inout GPSDFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        if !s[1].isEmpty, mergeTimeOfDay(s[1]) {
            register(s[1])
            if year != 0 { changes.insert(.time) }
        }
        guard let faaMode = s[6].first, faaMode != "N" else {  // no fix
            new.mode = 1
            changes.insert(.mode)
            return
        }
        if s[13].first == "U" || s[13].first == "V" { return }  // unsafe, or not valid
        let satellites = Self.integer(s[7])
        if let (latitude, longitude) = Self.position(s, at: 2) {
            new.latitude = latitude
            new.longitude = longitude
            changes.insert(.position)
            new.mode = 2
            if !s[9].isEmpty {
                if let altitude = Self.number(s[9]) {
                    new.altitude = altitude
                    changes.insert(.altitude)
                    if satellites > 3 { new.mode = 3 }
                }
                if !s[10].isEmpty { new.geoidSeparation = Self.number(s[10]) }
            }
        } else {
            new.mode = 1
        }
        if !s[8].isEmpty { dilutions.horizontal = Self.number(s[8]) }
        new.status = Self.status(ofFAAMode: faaMode)
        changes.formUnion([.mode, .status])
    }

    /// `$--VTG,course,T,magnetic,M,knots,N,kmh,K,faa`
    func vtg(_ s: NMEASentence, count: Int, _ new: inout GPSDFix, _ changes: inout Changes) {
        guard !s[1].isEmpty, !s[5].isEmpty else { return }
        if count > 9, s[9].first == "E" || s[9].first == "N" { return }
        new.course = Self.number(s[1])
        new.speed = Self.number(s[5]).map { $0 * Self.knotsToMetresPerSecond }
        changes.formUnion([.course, .speed])
    }

    /// `$--ZDA,hhmmss.ss,dd,mm,yyyy,zone,minutes`: the date, with its century.
    mutating func zda(_ s: NMEASentence, _ changes: inout Changes) {
        guard !s[1].isEmpty, !s[2].isEmpty, !s[3].isEmpty, !s[4].isEmpty, mergeTimeOfDay(s[1]) else { return }
        let year = Self.integer(s[4]), month = Self.integer(s[3]), day = Self.integer(s[2])
        guard (1900...2200).contains(year), (1...12).contains(month), (1...31).contains(day) else { return }
        century = max(century, year - year % 100)
        self.year = year
        self.month = month
        self.day = day
        changes.insert(.time)
    }

    /// `$--GBS,hhmmss.ss,lat error,lon error,alt error,...`: the receiver's own error estimates
    /// (one standard deviation, metres), taken when its time is the cycle's.
    func gbs(_ s: NMEASentence, _ new: inout GPSDFix, _ changes: inout Changes) {
        let clock = Array(s[1].utf8)
        guard clock.count >= 6, clock.prefix(6).allSatisfy(Self.isDigit),
              Self.twoDigits(clock, 0) == hour, Self.twoDigits(clock, 2) == minute, Self.twoDigits(clock, 4) == second
        else { return }
        new.epy = Self.number(s[2])
        new.epx = Self.number(s[3])
        new.epv = Self.number(s[4])
        changes.insert(.data)
    }

    // MARK: - Date and time

    /// gpsd's `merge_hhmmss`: six digits, then optional fractions of a second.
    mutating func mergeTimeOfDay(_ field: Substring) -> Bool {
        let bytes = Array(field.utf8)
        guard bytes.count >= 6, bytes.prefix(6).allSatisfy(Self.isDigit) else { return false }
        let oldHour = hour
        hour = Self.twoDigits(bytes, 0)
        if hour < oldHour { day += 1 }  // past midnight
        minute = Self.twoDigits(bytes, 2)
        second = Self.twoDigits(bytes, 4)
        nanoseconds = 0
        if bytes.count > 7, bytes[6] == UInt8(ascii: "."), Self.isDigit(bytes[7]) {
            let fraction = bytes[7...]
            let digits = fraction.prefix(while: Self.isDigit).prefix(9)
            let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            nanoseconds = fraction.count <= 9 ? value * Self.powerOf10(9 - fraction.count) : 0
        }
        return true
    }

    /// gpsd's `merge_ddmmyy`: exactly six digits, the century from ZDA or this one's.
    private mutating func mergeDate(_ field: Substring) -> Bool {
        let bytes = Array(field.utf8)
        guard bytes.count == 6, bytes.allSatisfy(Self.isDigit) else { return false }
        let yy = Self.twoDigits(bytes, 4), month = Self.twoDigits(bytes, 2), day = Self.twoDigits(bytes, 0)
        if (year - 1900) % 100 == 99 && yy == 0 { century += 100 }
        var year = century + yy
        if year >= 2080 { year -= 100 }
        guard (1...12).contains(month), (1...31).contains(day) else { return false }
        self.year = year
        self.month = month
        self.day = day
        return true
    }

    /// A receiver without a fix that sends no time (`$GPRMC,,V,...`): gpsd forgets the date.
    private mutating func forgetDate() {
        year = 0
        month = 0
        day = 0
        hour = 0
        minute = 0
        second = 0
    }

    /// The date and time built up so far.
    func utc() -> GPSDTime? {
        // Days past a month's end roll into the next, as C's `mkgmtime` takes them.
        let days = RFC3339.daysFromCivil(year: year, month: min(max(month, 1), 12), day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return seconds > 0 ? GPSDTime(seconds: seconds, nanoseconds: nanoseconds) : nil  // none before 1970 (a date forgotten)
    }
}
