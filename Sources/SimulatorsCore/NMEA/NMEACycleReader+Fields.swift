// The fields of NMEA sentences as gpsd 3.22 reads them: which sentences it knows (and so which
// take part in finding cycles), numbers as its `safe_atof` and C's `atoi` read them, positions as
// its `decode_lat_or_lon` does.
extension NMEACycleReader {
    /// gpsd's tag for the sentence: its place in gpsd's table, + 1; 0 for a sentence gpsd does
    /// not decode, or too short to.
    static func tag(of sentence: NMEASentence, count: Int) -> Int {
        let address = sentence.address
        let byName = gpsdSentenceIndex[address].flatMap { gpsdSentences[$0].name.count > 3 ? $0 : nil }
        let byType = address.count == 5 ? gpsdSentenceIndex[address.dropFirst(2)] : nil
        guard let index = [byName, byType].compactMap({ $0 }).min() else { return 0 }
        let known = gpsdSentences[index]
        return known.decoded && count >= known.fields ? index + 1 : 0
    }

    /// Where each name is in ``gpsdSentences``.
    static let gpsdSentenceIndex = Dictionary(uniqueKeysWithValues: gpsdSentences.enumerated().map { ($1.name, $0) })

    /// The sentences gpsd 3.22's NMEA driver knows, in its order (the first match counts): how
    /// many fields it needs, whether it extends a cycle, and whether gpsd decodes it at all.
    /// Three-letter names stand for any talker.
    static let gpsdSentences: [(name: Substring, fields: Int, continuesCycle: Bool, decoded: Bool)] = [
        ("PGLOR", 2, false, true), ("PGRMB", 0, false, false), ("PGRMC", 0, false, false), ("PGRME", 7, false, true),
        ("PGRMF", 15, false, true), ("PGRMH", 0, false, false), ("PGRMI", 0, false, false), ("PGRMM", 2, false, true),
        ("PGRMO", 0, false, false), ("PGRMT", 0, false, false), ("PGRMV", 0, false, false), ("PGRMZ", 4, false, true),
        ("AAM", 0, false, false), ("ALM", 0, false, false), ("APB", 0, false, false), ("BOD", 0, false, false),
        ("BWC", 0, false, false), ("DBT", 7, true, true), ("DPT", 0, false, false), ("DTM", 2, false, true),
        ("GBS", 7, false, true), ("GGA", 13, false, true), ("GLC", 0, false, false), ("GLL", 7, false, true),
        ("GNS", 13, false, true), ("GRS", 0, false, false), ("GSA", 18, false, true), ("GST", 8, false, true),
        ("GSV", 0, false, true), ("HDG", 0, false, true), ("HDT", 1, false, true), ("MLA", 0, false, false),
        ("MSS", 0, false, false), ("MTW", 0, false, false), ("MWD", 0, false, true), ("MWV", 0, false, true),
        ("OHPR", 18, false, true), ("OSD", 0, false, false), ("PASHR", 3, false, true), ("PMGNST", 8, false, true),
        ("PMTK", 3, false, true), ("PMTK001", 3, false, true), ("PMTK424", 3, false, true), ("PMTK705", 3, false, true),
        ("PMTKCHN", 0, false, false), ("PRWIZCH", 0, false, false), ("PSRFEPE", 7, false, true),
        ("PTFTTXT", 0, false, false), ("PUBX", 0, false, false), ("PTNTHTM", 9, false, true), ("PTNTA", 8, false, true),
        ("PSTI", 2, false, true), ("STI", 2, false, true), ("PSTM", 0, false, false), ("RMB", 0, false, false),
        ("RMC", 8, false, true), ("ROT", 0, false, false), ("RPM", 0, false, false), ("RSA", 0, false, false),
        ("RTE", 0, false, false), ("TXT", 5, false, true), ("VBW", 0, false, false), ("VDR", 0, false, false),
        ("VDO", 0, false, false), ("VHW", 0, false, false), ("VLW", 0, false, false), ("VTG", 5, false, true),
        ("XDR", 0, false, false), ("XTE", 0, false, false), ("ZDA", 4, false, true),
    ]

    // MARK: - Fields

    /// Latitude and longitude from four fields (`ddmm.mmmm,N,dddmm.mmmm,E`) starting at `index`.
    static func position(_ s: NMEASentence, at index: Int) -> (Double, Double)? {
        guard !s[index].isEmpty, !s[index + 1].isEmpty, !s[index + 2].isEmpty, !s[index + 3].isEmpty,
              var latitude = degrees(s[index]), var longitude = degrees(s[index + 2]) else { return nil }
        if s[index + 1].first == "S" { latitude = -latitude }
        if s[index + 3].first == "W" { longitude = -longitude }
        return (latitude, longitude)
    }

    /// `dddmm.mmmm` as degrees; the decimal point is required.
    static func degrees(_ field: Substring) -> Double? {
        guard let point = field.firstIndex(of: "."), let whole = Int(field[..<point]) ?? (point == field.startIndex ? 0 : nil),
              let fraction = number(field[point...]) else { return nil }
        let degrees = whole / 100
        return (Double(whole - degrees * 40) + fraction) * (1.0 / 60.0)
    }

    /// The number at the start of `field` as gpsd's `safe_atof` reads it (Tcl's `strtod`, which it
    /// derives from: at most 18 digits of mantissa, scaled by a table of powers of ten, so not
    /// always the nearest double; `12.5M` is 12.5); `nil` (gpsd's NaN) when the field does not
    /// start with a sign, a digit or a point, and for a number too large for a double.
    static func number(_ field: Substring) -> Double? {
        let bytes = field.utf8
        var p = bytes.startIndex
        while p < bytes.endIndex, NMEASentence.isSpace(bytes[p]) { p = bytes.index(after: p) }
        guard p < bytes.endIndex else { return nil }
        var negative = false
        switch bytes[p] {
        case UInt8(ascii: "-"):
            negative = true
            p = bytes.index(after: p)
        case UInt8(ascii: "+"): p = bytes.index(after: p)
        case UInt8(ascii: "."): break
        case let byte where isDigit(byte): break
        default: return nil
        }
        // The mantissa's digits, and where its point is.
        let digitsStart = p
        var point = -1, size = 0
        while p < bytes.endIndex, isDigit(bytes[p]) || (bytes[p] == UInt8(ascii: ".") && point < 0) {
            if bytes[p] == UInt8(ascii: ".") { point = size }
            size += 1
            p = bytes.index(after: p)
        }
        let exponentStart = p
        if point < 0 { point = size } else { size -= 1 }
        let exponentOfFraction: Int
        if size > 18 {
            exponentOfFraction = point - 18
            size = 18
        } else {
            exponentOfFraction = point - size
        }
        guard size > 0 else { return negative ? -0.0 : 0 }
        // Nine digits at a time, as integers.
        var digits = bytes[digitsStart...].lazy.filter(isDigit).makeIterator()
        var high = 0, low = 0
        while size > 9, let digit = digits.next() {
            high = 10 * high + Int(digit - UInt8(ascii: "0"))
            size -= 1
        }
        while size > 0, let digit = digits.next() {
            low = 10 * low + Int(digit - UInt8(ascii: "0"))
            size -= 1
        }
        var value = 1.0e9 * Double(high) + Double(low)
        // An exponent, then the power of ten made of the table's binary powers.
        p = exponentStart
        var exponent = 0
        var negativeExponent = false
        if p < bytes.endIndex, bytes[p] == UInt8(ascii: "E") || bytes[p] == UInt8(ascii: "e") {
            p = bytes.index(after: p)
            if p < bytes.endIndex, bytes[p] == UInt8(ascii: "-") {
                negativeExponent = true
                p = bytes.index(after: p)
            } else if p < bytes.endIndex, bytes[p] == UInt8(ascii: "+") {
                p = bytes.index(after: p)
            }
            while p < bytes.endIndex, isDigit(bytes[p]) {
                exponent = min(exponent * 10 + Int(bytes[p] - UInt8(ascii: "0")), 1_000_000)
                p = bytes.index(after: p)
            }
        }
        exponent = negativeExponent ? exponentOfFraction - exponent : exponentOfFraction + exponent
        let divides = exponent < 0
        exponent = min(abs(exponent), 511)
        var scale = 1.0
        for power in powersOf10 where exponent != 0 {
            if exponent & 1 == 1 { scale *= power }
            exponent >>= 1
        }
        value = divides ? value / scale : value * scale
        guard value.isFinite else { return nil }
        return negative ? -value : value
    }

    /// 10^(2^i), for ``number(_:)``.
    private static let powersOf10: [Double] = [10, 100, 1.0e4, 1.0e8, 1.0e16, 1.0e32, 1.0e64, 1.0e128, 1.0e256]

    /// The integer at the start of `field`, as C's `atoi` reads it; 0 when there is none.
    static func integer(_ field: Substring) -> Int {
        var bytes = field.utf8.drop(while: { $0 == 0x20 })[...]
        var sign = 1
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            sign = first == UInt8(ascii: "-") ? -1 : 1
            bytes = bytes.dropFirst()
        }
        return sign * bytes.prefix(while: isDigit).prefix(18).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The talker's second letter (`P` of GP, `N` of GN), as gpsd tells GSA and GGA talkers apart.
    static func talkerLetter(_ s: NMEASentence) -> UInt8 {
        let address = s.address.utf8
        return address[address.index(after: address.startIndex)]
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    static func twoDigits(_ bytes: [UInt8], _ index: Int) -> Int {
        Int(bytes[index] - UInt8(ascii: "0")) * 10 + Int(bytes[index + 1] - UInt8(ascii: "0"))
    }

    static func powerOf10(_ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }
}
