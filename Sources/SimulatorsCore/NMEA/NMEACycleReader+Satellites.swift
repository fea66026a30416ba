// The satellites NMEACycleReader reads, as gpsd 3.22's `driver_nmea0183.c` reads them: GSA says
// which satellites the fix used and its dilutions of precision, GSV which are in view and where.
// gpsd numbers satellites of every constellation in one range of PRNs (`nmeaid_to_prn`).
extension NMEACycleReader {
    /// The constellations gpsd tells apart by a GSA's or GSV's talker (its second letter), as
    /// NMEA 4.10 numbers them: 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC; 0 for GPS
    /// (`GP`), several (`GN`) or unknown.
    static func constellation(ofTalker letter: UInt8) -> Int {
        switch letter {
        case UInt8(ascii: "A"): 3
        case UInt8(ascii: "B"), UInt8(ascii: "D"): 4
        case UInt8(ascii: "I"): 6
        case UInt8(ascii: "L"): 2
        case UInt8(ascii: "Q"), UInt8(ascii: "Z"): 5
        default: 0
        }
    }

    /// Whether a talker's letter is one gpsd notes as "another constellation than GPS has sent
    /// its own GSA (or GSV)": then a later GPGSA (GPGSV) no longer gives the cycle's mode (sky).
    static func isOtherConstellation(_ letter: UInt8) -> Bool {
        Array("ABDILNQZ".utf8).contains(letter)
    }

    /// `$--GSA,A,mode,prn,...,pdop,hdop,vdop[,system]`: the mode, the satellites used (the GSAs
    /// of one cycle's constellations add up) and the dilutions of precision.
    mutating func gsa(_ s: NMEASentence, count: Int, _ new: inout GPSDFix, _ changes: inout Changes) {
        let previousTalker = lastGSATalker
        let talker = Self.talkerLetter(s)
        if count >= 18, !ggaTimestampRepeats {  // i.Trek M3's "$GPGSA,A,1,,,,*32" is too short
            new.mode = Self.integer(s[2])
            changes = s[2].first == "E" ? .data : [.mode, .data]  // E: an Antaris dead-reckoning estimate
            if count <= 19 {  // the Navior CH-4701's 24 PRNs push the dilutions out of place
                if !s[15].isEmpty { dilutions.position = Self.number(s[15]) }
                if !s[16].isEmpty { dilutions.horizontal = Self.number(s[16]) }
                if !s[17].isEmpty { dilutions.vertical = Self.number(s[17]) }
            }
            if lastGSATalker == 0 || (talker == lastGSATalker && talker != UInt8(ascii: "N")) { satellitesUsed = [] }
            lastGSATalker = talker
            if Self.isOtherConstellation(talker) { seenOtherGSA = true }
            let constellation = Self.constellation(ofTalker: talker)
            for index in 3..<max(3, count - 3) {
                let number = Self.integer(s[index])
                guard number >= 1 else { continue }
                let prn = Self.prn(address: s.address, number: number, constellation: constellation).prn
                guard prn > 0 else { continue }
                guard satellitesUsed.count < Self.maximumChannels else { break }
                satellitesUsed.append(prn)
            }
        }
        if seenOtherGSA && talker == UInt8(ascii: "P") {
            changes = []  // GPGSA beside GLGSA, BDGSA...: the other one's mode counts
        } else if previousTalker != UInt8(ascii: "N") && talker == UInt8(ascii: "N") {
            changes = .mode  // the first GNGSA of a cycle always gives its mode
        }
    }

    /// `$--GSV,count,part,visible,prn,elevation,azimuth,snr,...[,signal]`: the satellites in view,
    /// four a sentence. The parts of a set (and the sets of other constellations that follow a
    /// GPGSV set) add up; the last part completes the sky, and gpsd reports it (a SKY), unless
    /// other constellations' sets have been seen and this is the GPS one, which they follow.
    /// Returns whether the sky was completed.
    mutating func gsv(_ s: NMEASentence, count: Int) -> Bool {
        guard count > 3 else {
            sky.satellites = []
            return false
        }
        var signal = 0
        switch count % 4 {
        case 0: break
        case 1: signal = Self.integer(s[count - 1])  // NMEA 4.10's signal, after the satellites
        default:
            sky.satellites = []
            return false
        }
        let talker = Self.talkerLetter(s)
        let parts = Self.integer(s[1]), part = Self.integer(s[2])
        guard part >= 1 else {
            sky.satellites = []
            return false
        }
        // gpsd knows the constellation only in a set's first part.
        var constellation = 0
        if part == 1 {
            if lastGSVTalker == 0 || (talker == UInt8(ascii: "P") && Self.ubloxSignal(signal) == 0) { sky.satellites = [] }
            lastGSVTalker = talker
            constellation = Self.constellation(ofTalker: talker)
            if Self.isOtherConstellation(talker) { seenOtherGSV = true }
        }
        var field = 4
        while field < count / 4 * 4 {
            guard sky.satellites.count < Self.maximumChannels else {
                sky.satellites = []
                break
            }
            let number = Self.integer(s[field])
            field += 1
            guard number != 0 else { continue }  // as gpsd: one field on, not four
            let (prn, gnss, svid) = Self.prn(address: s.address, number: number, constellation: constellation)
            var satellite = GPSDSky.Satellite(prn: prn, gnss: gnss, number: svid, signal: Self.ubloxSignal(signal))
            satellite.elevation = Double(Self.integer(s[field]))
            satellite.azimuth = Double(Self.integer(s[field + 1]))
            satellite.signalStrength = Double(Self.integer(s[field + 2]))
            field += 3
            // NMEA 4.10 does not say which signal was used: one not received is not.
            satellite.used = prn > 0 && (satellite.signalStrength ?? 0) > 0 && satellitesUsed.contains(prn)
            sky.satellites.append(satellite)
        }
        guard part >= parts else { return false }  // more parts to come
        // A SiRFstar II that sees nothing sends every azimuth 0.
        guard sky.satellites.contains(where: { $0.azimuth != 0 }) else {
            sky.satellites = []
            return false
        }
        if seenOtherGSV && talker == UInt8(ascii: "P") { return false }
        // gpsd works out XDOP, YDOP, TDOP and GDOP again from the new sky.
        dilutions.x = nil
        dilutions.y = nil
        dilutions.time = nil
        dilutions.geometric = nil
        return true
    }

    /// gpsd's PRN for a receiver's satellite `number` (`nmeaid_to_prn`), with the GNSS and the
    /// number in it as u-blox gives them (u-blox's GNSS ids: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou,
    /// 4 IMES, 5 QZSS, 6 GLONASS, 7 NavIC). gpsd's ranges: 1-32 GPS, 33-64 SBAS (PRNs 120-151),
    /// 65-96 GLONASS, 120-158 SBAS, 173-182 IMES, 193-197 QZSS, 201-237 BeiDou (moved to
    /// 401-437), 301-356 Galileo, 401-437 BeiDou; a number 1-32 of another constellation, told by
    /// the talker or by `constellation` (see ``constellation(ofTalker:)``), is moved into its range.
    /// PRN 0: a number gpsd cannot place.
    static func prn(address: Substring, number: Int, constellation: Int) -> (prn: Int, gnss: Int, svid: Int) {
        guard number >= 1 else { return (0, 0, 0) }
        if constellation > 0 {
            switch constellation {
            case 2: let svid = number < 64 ? number : number - 64; return (64 + svid, 6, svid)
            case 3: let svid = number < 100 ? number : number - 100; return (300 + svid, 2, svid)
            case 4: let svid = number < 100 ? number : number - 200; return (400 + svid, 3, svid)
            case 5: let svid = number < 100 ? number : number - 192; return (192 + svid, 5, svid)
            case 6: return (number + 500, 7, number)
            default: return (0, 0, 0)  // no talker stands for 1, GPS
            }
        }
        if number <= 32 {
            let talker = Array(address.utf8.prefix(2))
            switch (talker.first, talker.dropFirst().first) {
            case (UInt8(ascii: "G"), UInt8(ascii: "A")): return (300 + number, 2, number)
            case (UInt8(ascii: "G"), UInt8(ascii: "B")), (UInt8(ascii: "B"), UInt8(ascii: "D")),
                 (UInt8(ascii: "P"), UInt8(ascii: "Q")): return (400 + number, 3, number)
            case (UInt8(ascii: "G"), UInt8(ascii: "I")): return (500 + number, 7, number)
            case (UInt8(ascii: "G"), UInt8(ascii: "L")): return (64 + number, 6, number)
            case (UInt8(ascii: "G"), UInt8(ascii: "Q")), (UInt8(ascii: "Q"), UInt8(ascii: "Z")): return (192 + number, 5, number)
            default: return (number, 0, number)  // GPS, or a talker gpsd does not know
            }
        }
        switch number {
        case 33...64: return (number, 1, number + 87)
        case 65...96: return (number, 6, number - 64)
        case 120...158: return (number, 1, number)
        case 173...182: return (number, 4, number - 172)
        case 193...197: return (number, 5, number - 192)
        case 201...237: return (number + 200, 3, number - 200)
        case 301...356: return (number, 2, number - 300)
        case 401...437: return (number, 3, number - 400)
        default: return (0, 0, 0)
        }
    }

    /// gpsd's `MAXCHANNELS`: the most satellites it holds.
    static let maximumChannels = 140

    /// u-blox's number for an NMEA 4.10 signal, as gpsd maps it (`nmea_sigid_to_ubx`): 0 for
    /// GPS L1 C/A, Galileo E1 and a signal not given.
    static func ubloxSignal(_ signal: Int) -> Int {
        switch signal {
        case 2: 5   // Galileo E5
        case 3: 2   // BeiDou B2, GPS L2
        case 5: 4   // GPS L2 CM
        case 6: 3   // GPS L2 CL
        default: 0
        }
    }
}
