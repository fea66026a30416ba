// The proprietary sentences NMEACycleReader reads, as gpsd 3.22's `driver_nmea0183.c` reads them
// (Garmin's, SiRF's and Magellan's that set what a TPV reports), and what gpsd notes of the other
// sentences it decodes, which decides whether it reports after them.
extension NMEACycleReader {
    /// `$PGRME,hpe,M,vpe,M,epe,M`: a Garmin's own error estimates, taken as 50 % (CEP) and scaled
    /// to gpsd's 95 % (×2.45/1.18); the horizontal one split between `epx` and `epy`.
    func pgrme(_ s: NMEASentence, _ new: inout GPSDFix, _ changes: inout Changes) {
        guard s[2].first == "M", s[4].first == "M", s[6].first == "M" else { return }
        changes.insert(.data)
        let scale = 2.45 / 1.18
        let horizontal = Self.number(s[1]).map { $0 * (1 / 2.0.squareRoot()) * scale }
        new.epx = horizontal
        new.epy = horizontal
        new.epv = Self.number(s[3]).map { $0 * scale }
        new.sep = Self.number(s[5]).map { $0 * scale }
    }

    /// `$PGRMZ,feet,f,mode`: a Garmin's height above sea level, in whole feet, and its mode.
    func pgrmz(_ s: NMEASentence, _ new: inout GPSDFix, _ changes: inout Changes) {
        if s[2].first == "f", !s[1].isEmpty {
            new.altitude = Double(Self.integer(s[1])) * 0.3048
            changes.insert(.altitude)
        }
        if let mode = s[3].first, let value = mode.wholeNumberValue, (1...3).contains(value) {
            new.mode = value
            changes.insert(.mode)
        }
    }

    /// `$PSRFEPE,hhmmss.sss,A,hdop,ehpe,evpe,ehve,ehe`: a SiRF's own error estimates (horizontal
    /// and vertical position, metres; speed, m/s; heading, degrees), and its time of day.
    mutating func psrfepe(
        _ s: NMEASentence, _ new: inout GPSDFix, _ changes: inout Changes, _ register: (Substring) -> Void
    ) {
        changes.insert(.status)  // gpsd says so, with no status to give
        if !s[1].isEmpty, mergeTimeOfDay(s[1]) {
            register(s[1])
            if year != 0 { changes.insert(.time) }
        }
        guard s[2].first == "A" else { return }
        if !s[3].isEmpty { dilutions.horizontal = Self.number(s[3]) }
        if !s[4].isEmpty { new.eph = Self.number(s[4]) }
        if !s[5].isEmpty { new.epv = Self.number(s[5]) }
        if !s[6].isEmpty { new.eps = Self.number(s[6]) }
        if !s[7].isEmpty { new.epd = Self.number(s[7]) }
    }

    /// `$PMGNST,version,mode,T,battery,...`: a Magellan's status. gpsd reads its mode one field
    /// on, from the battery's, which is never `T`: it always takes it for "no fix", and so do we.
    func pmgnst(_ s: NMEASentence, _ new: inout GPSDFix, _ changes: inout Changes) {
        let mode = Self.integer(s[3])
        new.mode = s[4].first == "T" && (2...3).contains(mode) ? mode : 1
        changes.insert(.mode)
    }

    /// Whether gpsd notes anything from a sentence the fakes read for nothing else: a heading
    /// (HDG, HDT, and the attitude of OHPR and PTNTHTM), a depth (DBT), wind (MWD; MWV relative,
    /// in knots, valid), pseudorange noise (GST). It decides whether gpsd reports after it.
    static func setsOtherData(_ s: NMEASentence) -> Bool {
        // gpsd refuses an angle below 0 or above 360, and takes NaN (an empty or bad field).
        func angle(_ field: Substring) -> Bool {
            let value = number(field) ?? .nan
            return !(value < 0 || value > 360)
        }
        switch s.isProprietary ? s.address : s.type {
        case "HDG": return !s[1].isEmpty && angle(s[1]) && angle(s[2])
        case "HDT": return !s[1].isEmpty && angle(s[1])
        case "DBT": return !s[3].isEmpty || !s[1].isEmpty || !s[5].isEmpty
        case "MWD", "GST", "OHPR", "PTNTHTM": return true
        case "MWV": return s[2].first == "R" && s[4].first == "N" && s[5].first == "A"
        default: return false
        }
    }
}
