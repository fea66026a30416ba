#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// What the sentences of one reporting cycle said, merged as gpsd merges them into a TPV.
struct NMEAFix {
    /// Seconds since 1970; `nil` until a sentence with a usable date and time says.
    var time: Double?
    var latitude: Double?
    var longitude: Double?
    /// gpsd's mode: 0 not seen, 1 no fix, 2 2D, 3 3D.
    var mode = 0
    /// Metres above mean sea level.
    var altitude: Double?
    /// Metres of the geoid above the ellipsoid, where the receiver says.
    var geoidSeparation: Double?
    /// Metres per second.
    var speed: Double?
    /// Degrees from true north.
    var course: Double?
}

/// Reads NMEA sentences one at a time into reporting cycles and the fixes gpsd 3.22 reports for
/// them, following its NMEA 0183 driver (`driver_nmea0183.c`, `gpsd_poll`, `gps_merge_fix`) in
/// everything that decides a fix's time, position and mode:
///
/// - A cycle starts at a sentence whose time of day (GGA, GLL, GNS, GBS, valid RMC) differs from
///   the one before; ZDA's does not start one. The sentences merge into the cycle's fix, a later
///   one winning field by field.
/// - gpsd reports a cycle when the sentence it has learned ends a cycle arrives: the last sentence
///   with a time of day before the first change of time (more than one, if the receiver's order
///   varies). What comes after it in the cycle is not reported. A depth sounder's `DBT` makes
///   every sentence after it end a cycle. A cycle without that sentence is not reported. The
///   first cycle, before gpsd has learned where cycles end, is taken at its last sentence with a
///   time of day (gpsdecode does not report it; gpsd, the daemon, does).
/// - The date comes from RMC (two-digit years 1980–2079) or ZDA and holds until another says;
///   a time of day that goes back past midnight moves it a day on. GGA, GLL and GNS times count
///   only once a date is known.
/// - The mode: RMC with status A or D gives 2D (3D when more than three satellites were used, or
///   the cycle has an altitude), V no fix. GGA gives 2D with a position, 3D with an altitude and
///   at least four satellites, no fix under three. GLL and GNS likewise; GSA's mode field
///   overrides, except a GPGSA after another constellation's GSA. (gpsd also holds a 3D fix
///   through the first cycle whose sentences say 2D; a replay gives what they say.)
/// - A position must have a decimal point in its minutes and lie on the globe.
///
/// It is not gpsd: proprietary sentences (`$P...`) are ignored, and so are the dilutions,
/// satellites and errors gpsd derives.
struct NMEACycleReader {
    /// A cycle's fix as reported, and its time of day in seconds.
    typealias Report = (fix: NMEAFix, timeOfDay: Double)

    /// The current cycle's fix, merged so far.
    var fix = NMEAFix()
    /// The current cycle's time of day in seconds, once a sentence has given one.
    var cycleTimeOfDay: Double?
    /// The current cycle's fix as last reported.
    var reported: NMEAFix?

    // gpsd's `nmea.date`: the broken-down date and time the sentences built up.
    var year = 0   // 0: not yet known
    var month = 0
    var day = 0
    var hour = 0
    var minute = 0
    var second = 0
    var nanoseconds = 0
    var century = 2000

    var thisTimeOfDay: Int? = 0      // as gpsd registers it: hhmmss.ss read as a number, in nanoseconds
    var lastTag = 0                  // the last sentence with a time of day (its index in gpsdSentences, + 1)
    var cycleEnders: Set<Int> = []   // the sentences learned to end a cycle
    var cycleContinues = false       // a DBT was seen: every sentence after it ends a cycle
    var lastFix = NMEAFix()          // the fix after the last sentence that had a time
    var oldFix = NMEAFix()           // the one before, of an earlier time
    var satellitesUsed = 0
    var lastGGATalker: UInt8 = 0
    var lastGGATimestamp: Substring = ""
    var ggaTimestampRepeats = false  // gpsd's latch_mode: a GGA whose time did not advance
    var lastGSATalker: UInt8 = 0
    var seenNonGPSGSA = false

    /// What one sentence sets, as gpsd's mask bits.
    struct Changes: OptionSet {
        let rawValue: Int
        static let time = Changes(rawValue: 1 << 0)
        static let position = Changes(rawValue: 1 << 1)
        static let mode = Changes(rawValue: 1 << 2)
        static let altitude = Changes(rawValue: 1 << 3)
        static let speed = Changes(rawValue: 1 << 4)
        static let course = Changes(rawValue: 1 << 5)
    }

    /// Reads `sentence`. Returns the reports it completes: when it starts a new cycle, the one
    /// before (if gpsd reported it); when gpsd reports a cycle again with another time (two
    /// receiver epochs less than 10 ms apart make one gpsd cycle), the earlier report.
    mutating func read(_ sentence: NMEASentence) -> [Report] {
        let type = sentence.type
        // `!` sentences are AIS, not a fix. gpsd drops sentences longer than 102 bytes with their
        // line end: two sentences run together (a Garmin GPS-10 fault), or noise.
        guard sentence.text.first == "$", sentence.text.utf8.count <= 100 else { return [] }
        if type != "GSA" { lastGSATalker = 0 }
        // gpsd counts the fields after the address, plus one when there is a checksum.
        let count = sentence.fields.count - (sentence.hasChecksum ? 0 : 1)
        let tag = Self.tag(of: sentence, count: count)
        var new = NMEAFix()
        var changes: Changes = []
        var registered: (nanoseconds: Int?, seconds: Double?)?

        func register(_ field: Substring) {
            guard !field.isEmpty else { return }
            registered = (Self.number(field).flatMap(Self.nanoseconds), NMEADecoder.timeOfDay(field))
        }

        if tag > 0, !sentence.isProprietary {
            switch type {
            case "GGA": gga(sentence, &new, &changes, register)
            case "RMC": rmc(sentence, count: count, &new, &changes, register)
            case "GLL": gll(sentence, count: count, &new, &changes, register)
            case "GNS": gns(sentence, &new, &changes, register)
            case "GSA": gsa(sentence, count: count, &new, &changes)
            case "VTG": vtg(sentence, count: count, &new, &changes)
            case "ZDA": zda(sentence, &changes)
            case "GBS": register(sentence[1])  // only its time, which starts a cycle like the others'
            default: break
            }
            if Self.gpsdSentences[tag - 1].continuesCycle { cycleContinues = true }
        }
        if changes.contains(.time) {
            new.time = year == 0 && day == 0 ? nil : utc()
        }

        // Where gpsd's cycles start and end.
        var startsCycle = false
        var reports = false
        if let registered {
            // More than 10 ms apart, in whole nanoseconds as gpsd's timespecs have it.
            if let now = registered.nanoseconds, let before = thisTimeOfDay { startsCycle = abs(now - before) > 10_000_000 }
            thisTimeOfDay = registered.nanoseconds
            if startsCycle, lastTag > 0, !cycleContinues { cycleEnders.insert(lastTag) }
        } else if cycleContinues {
            cycleEnders.remove(lastTag)
            cycleEnders.insert(tag)
        }
        if registered != nil || cycleContinues, cycleEnders.contains(tag) { reports = true }
        // Until gpsd has learned where cycles end (in the first cycle), the cycle is taken as it
        // would have been reported: at its last sentence with a time of day.
        if cycleEnders.isEmpty, registered != nil { reports = true }
        if registered != nil { lastTag = tag }

        // A GLL that leaves the mode unsaid keeps a 3D fix while gpsd holds an altitude. (gpsd
        // also keeps 3D through a cycle whose sentences say 2D; a replay gives what they say.)
        if changes.contains(.mode), new.mode == 0, fix.mode == 3, lastFix.altitude != nil || oldFix.altitude != nil {
            new.mode = 3
        }
        var completed: [Report] = []
        if startsCycle {
            if let report = endCycle() { completed.append(report) }
            cycleTimeOfDay = registered?.seconds
        }
        merge(new, changes)
        if reports {
            if let reported, let before = reported.time, let now = fix.time, before != now, let cycleTimeOfDay {
                completed.append((reported, cycleTimeOfDay))
            }
            reported = fix
        }
        return completed
    }

    /// The last cycle's report, if gpsd reports it, at the end of the log.
    mutating func finish() -> Report? {
        endCycle()
    }

    /// The cycle's report: what gpsd last reported of it; `nil` when gpsd reported nothing of it,
    /// and for the sentences before the first time of day. Starts the next cycle.
    private mutating func endCycle() -> Report? {
        defer {
            fix = NMEAFix()
            reported = nil
        }
        guard let cycleTimeOfDay, let report = reported else { return nil }
        return (report, cycleTimeOfDay)
    }

    /// `hhmmss.ss` read as a number (as gpsd's `safe_atof` and `DTOTS` read it), in nanoseconds.
    static func nanoseconds(_ number: Double) -> Int? {
        guard abs(number) < 1e9 else { return nil }  // not a time of day
        let whole = number.rounded(.towardZero)
        return Int(whole) * 1_000_000_000 + Int((number - whole) * 1e9)
    }

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

    // MARK: - Merging

    private mutating func merge(_ new: NMEAFix, _ changes: Changes) {
        if changes.contains(.time) { fix.time = new.time }
        if changes.contains(.position) {
            fix.latitude = new.latitude
            fix.longitude = new.longitude
        }
        if changes.contains(.mode) { fix.mode = new.mode }
        if changes.contains(.altitude), let altitude = new.altitude { fix.altitude = altitude }
        if changes.contains(.speed) { fix.speed = new.speed }
        if changes.contains(.course) { fix.course = new.course }
        if let separation = new.geoidSeparation { fix.geoidSeparation = separation }
        if let latitude = fix.latitude, let longitude = fix.longitude, !Geodesy.isValid(latitude: latitude, longitude: longitude) {
            fix.latitude = nil
            fix.longitude = nil
        }
        if let time = fix.time {
            if abs(time - (lastFix.time ?? 0)) > 0.0099 { oldFix = lastFix }
            lastFix = fix
        }
    }
}
