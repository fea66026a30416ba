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
        _ s: NMEASentence, _ new: inout NMEAFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        let previousTalker = lastGGATalker
        lastGGATalker = Self.talkerLetter(s)
        let quality = s[6].isEmpty ? -1 : Self.integer(s[6])
        if quality == 0, s[1].isEmpty { forgetDate() }
        // A GGA whose time has not moved on (a receiver that lost lock and repeats itself): gpsd
        // then distrusts the GSA that follows. Two talkers' GGAs in one cycle are not that.
        if previousTalker != 0 && previousTalker != lastGGATalker {
            ggaTimestampRepeats = false
        } else {
            ggaTimestampRepeats = s[1] == lastGGATimestamp
        }
        if ggaTimestampRepeats {
            new.mode = 1
            changes.insert(.mode)
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
            new.geoidSeparation = Self.number(s[11])
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
    }

    /// `$--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,knots,course,ddmmyy,var,E,faa`
    mutating func rmc(
        _ s: NMEASentence, count: Int, _ new: inout NMEAFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        let status = s[2].first
        guard status == "A" || status == "D" else {
            new.mode = 1
            if s[1].isEmpty || s[9].isEmpty {
                forgetDate()
                changes.insert(.time)
            }
            changes.insert(.mode)
            return
        }
        if !s[1].isEmpty, count > 9, !s[9].isEmpty, mergeTimeOfDay(s[1]), mergeDate(s[9]) {
            changes.insert(.time)
            register(s[1])
        }
        if let (latitude, longitude) = Self.position(s, at: 3) {
            new.latitude = latitude
            new.longitude = longitude
            changes.insert(.position)
            new.mode = 2
            changes.insert(.mode)
        } else {
            new.mode = 1
            changes.insert(.mode)
        }
        if !s[7].isEmpty, let knots = Self.number(s[7]) {
            new.speed = knots * 1852 / 3600
            changes.insert(.speed)
        }
        if !s[8].isEmpty, let course = Self.number(s[8]) {
            new.course = course
            changes.insert(.course)
        }
        if satellitesUsed > 3 || fix.altitude != nil {
            new.mode = 3
            changes.insert(.mode)
        }
    }

    /// `$--GLL,llll.ll,a,yyyyy.yy,a,hhmmss.ss,A,faa`
    mutating func gll(
        _ s: NMEASentence, count: Int, _ new: inout NMEAFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        if !s[5].isEmpty, mergeTimeOfDay(s[5]) {
            register(s[5])
            if year != 0 { changes.insert(.time) }
        }
        if s[6].first == "A", count < 8 || s[7].first != "N", let (latitude, longitude) = Self.position(s, at: 1) {
            new.latitude = latitude
            new.longitude = longitude
            changes.insert(.position)
            if fix.altitude != nil || satellitesUsed > 3 {
                new.mode = 3
            } else if fix.mode < 2 || oldFix.altitude == nil {
                new.mode = 2
            }
        } else {
            new.mode = 1
        }
        changes.insert(.mode)
    }

    /// `$--GNS,hhmmss.ss,llll.ll,a,yyyyy.yy,a,modes,nn,h.h,alt,sep,age,station,navstatus`
    mutating func gns(
        _ s: NMEASentence, _ new: inout NMEAFix, _ changes: inout Changes, _ register: (Substring) -> Void
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
            if !s[9].isEmpty, let altitude = Self.number(s[9]) {
                new.altitude = altitude
                changes.insert(.altitude)
                if satellites > 3 { new.mode = 3 }
            }
            new.geoidSeparation = Self.number(s[10])
        } else {
            new.mode = 1
        }
        changes.insert(.mode)
    }

    /// `$--GSA,A,mode,prn,...,pdop,hdop,vdop`: the mode, and the satellites used (one GSA per
    /// constellation in a cycle adds up).
    mutating func gsa(_ s: NMEASentence, count: Int, _ new: inout NMEAFix, _ changes: inout Changes) {
        let previousTalker = lastGSATalker
        let talker = Self.talkerLetter(s)
        if !ggaTimestampRepeats {
            new.mode = Self.integer(s[2])
            if s[2].first != "E" { changes = .mode }  // E: an Antaris dead-reckoning estimate
            if lastGSATalker == 0 || (talker == lastGSATalker && talker != UInt8(ascii: "N")) { satellitesUsed = 0 }
            lastGSATalker = talker
            if talker != UInt8(ascii: "P") { seenNonGPSGSA = true }
            for index in 3..<max(3, count - 3) where Self.integer(s[index]) >= 1 {
                satellitesUsed += 1
            }
        }
        if seenNonGPSGSA && talker == UInt8(ascii: "P") {
            changes = []  // GPGSA beside GLGSA, BDGSA...: the other one's mode counts
        } else if previousTalker != UInt8(ascii: "N") && talker == UInt8(ascii: "N") {
            changes = .mode  // the first GNGSA of a cycle always gives its mode
        }
    }

    /// `$--VTG,course,T,magnetic,M,knots,N,kmh,K,faa`
    func vtg(_ s: NMEASentence, count: Int, _ new: inout NMEAFix, _ changes: inout Changes) {
        guard !s[1].isEmpty, !s[5].isEmpty else { return }
        if count > 9, s[9].first == "E" || s[9].first == "N" { return }
        new.course = Self.number(s[1])
        new.speed = Self.number(s[5]).map { $0 * 1852 / 3600 }
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

    // MARK: - Date and time

    /// gpsd's `merge_hhmmss`: six digits, then optional fractions of a second.
    private mutating func mergeTimeOfDay(_ field: Substring) -> Bool {
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

    /// The date and time built up so far, in seconds since 1970.
    func utc() -> Double? {
        // Days past a month's end roll into the next, as C's `mkgmtime` takes them.
        let days = RFC3339.daysFromCivil(year: year, month: min(max(month, 1), 12), day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + Double(nanoseconds) / 1e9
        return seconds > 0 ? seconds : nil  // gpsd reports no time before 1970 (a date forgotten)
    }

    // MARK: - Fields

    /// Latitude and longitude from four fields (`ddmm.mmmm,N,dddmm.mmmm,E`) starting at `index`.
    private static func position(_ s: NMEASentence, at index: Int) -> (Double, Double)? {
        guard !s[index].isEmpty, !s[index + 1].isEmpty, !s[index + 2].isEmpty, !s[index + 3].isEmpty,
              var latitude = degrees(s[index]), var longitude = degrees(s[index + 2]) else { return nil }
        if s[index + 1].first == "S" { latitude = -latitude }
        if s[index + 3].first == "W" { longitude = -longitude }
        return (latitude, longitude)
    }

    /// `dddmm.mmmm` as degrees; the decimal point is required.
    private static func degrees(_ field: Substring) -> Double? {
        guard let point = field.firstIndex(of: "."), let whole = Int(field[..<point]) ?? (point == field.startIndex ? 0 : nil),
              let fraction = number(field[point...]) else { return nil }
        let degrees = whole / 100
        return (Double(whole - degrees * 40) + fraction) * (1.0 / 60.0)
    }

    /// The number at the start of `field`, as C's `atof` reads it (`12.5M` is 12.5); `nil` when
    /// the field does not start with one.
    static func number(_ field: Substring) -> Double? {
        let bytes = field.utf8.drop(while: { $0 == 0x20 })
        var end = bytes.startIndex
        if end < bytes.endIndex, bytes[end] == UInt8(ascii: "-") || bytes[end] == UInt8(ascii: "+") { end = bytes.index(after: end) }
        var digits = 0
        var sawPoint = false
        while end < bytes.endIndex {
            let byte = bytes[end]
            if isDigit(byte) {
                digits += 1
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            end = bytes.index(after: end)
        }
        guard let first = bytes.first, isDigit(first) || first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".") else {
            return nil
        }
        guard digits > 0 else { return 0 }
        return Double(String(decoding: bytes[..<end], as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil }
    }

    /// The integer at the start of `field`, as C's `atoi` reads it; 0 when there is none.
    private static func integer(_ field: Substring) -> Int {
        var bytes = field.utf8.drop(while: { $0 == 0x20 })[...]
        var sign = 1
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            sign = first == UInt8(ascii: "-") ? -1 : 1
            bytes = bytes.dropFirst()
        }
        return sign * bytes.prefix(while: isDigit).prefix(18).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The talker's second letter (`P` of GP, `N` of GN), as gpsd tells GSA and GGA talkers apart.
    private static func talkerLetter(_ s: NMEASentence) -> UInt8 {
        let address = s.address.utf8
        return address[address.index(after: address.startIndex)]
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func twoDigits(_ bytes: [UInt8], _ index: Int) -> Int {
        Int(bytes[index] - UInt8(ascii: "0")) * 10 + Int(bytes[index + 1] - UInt8(ascii: "0"))
    }

    private static func powerOf10(_ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }
}
