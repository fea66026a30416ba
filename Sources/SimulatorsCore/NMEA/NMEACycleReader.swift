#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// Reads NMEA sentences one at a time into reporting cycles and what gpsd 3.22, the daemon,
/// reports for them, following its NMEA 0183 driver (`driver_nmea0183.c`), its core
/// (`gpsd_poll`, `gps_merge_fix`, `gpsd_error_model`) and its reporting (`all_reports`):
///
/// - A cycle starts at a sentence whose time of day (GGA, GLL, GNS, GBS, valid RMC) differs from
///   the one before; ZDA's does not start one. The sentences merge into the cycle's fix, a later
///   one winning field by field (the status only ever goes up).
/// - gpsd reports a cycle (a TPV) when the sentence it has learned ends a cycle arrives: the last
///   sentence with a time of day before the first change of time (more than one, if the
///   receiver's order varies). A depth sounder's `DBT` makes every sentence after it end a
///   cycle. Until it has learned one (in the first cycle), and again after a receiver sends an
///   RMC or GGA without a time, gpsd reports after every sentence that gives a position or a
///   mode. A cycle's fix is what gpsd reported of it last.
/// - The date comes from RMC (two-digit years 1980–2079) or ZDA and holds until another says;
///   a time of day that goes back past midnight moves it a day on. GGA, GLL and GNS times count
///   only once a date is known.
/// - The mode: RMC with status A or D gives 2D (3D when more than three satellites were used, the
///   cycle has a height, or the last fix was 3D). GGA gives 2D with a position, 3D with a height
///   and at least four satellites, no fix under three. GLL and GNS likewise; GSA's mode field
///   overrides, except a GPGSA after another constellation's GSA. A 3D fix is held while gpsd
///   holds a height of the fix before, unless a sentence says there is no fix.
/// - The status (GPS, DGPS, RTK, dead reckoning, simulated...) from GGA's quality or the FAA mode
///   of RMC, GLL and GNS.
/// - The dilutions of precision from GSA (and HDOP from GGA and GNS), the satellites used from
///   GSA, the sky from GSV; XDOP and YDOP (and what the receiver leaves out) from the sky's
///   geometry; the errors, speed, climb and heights from them as ``GPSDErrorModel`` says.
/// - A position must have a decimal point in its minutes and lie on the globe.
///
/// It is not gpsd in all things: of the proprietary sentences (`$P...`) it reads Garmin's error
/// estimates and height (`PGRME`, `PGRMZ`), SiRF's error estimates (`PSRFEPE`) and Magellan's
/// status (`PMGNST`) only; gpsd's
/// magnetic variation (a model of its own) is left out; and the dates gpsd moves forward by 1024
/// weeks it leaves as the receiver wrote them.
struct NMEACycleReader {
    /// What gpsd reports: a cycle's fix as last reported, with its time of day in seconds, or a
    /// completed sky (a SKY) with the dilutions of precision at that moment.
    enum Report {
        /// `timeOfDay` is the receiver's (seconds): `nil` before it has sent one, or where it
        /// sends none at all.
        case fix(GPSDFix, timeOfDay: Double?)
        case sky(GPSDSky, GPSDDilutions)
    }

    /// Which of gpsd's programs it reports as.
    enum Reporting {
        /// gpsd, the daemon, as its clients see it.
        case daemon
        /// `gpsdecode`, gpsd's decoder run on a file: it reports only where it knows a cycle
        /// ends, so not the first cycle, nor after every sentence where it cannot tell.
        case gpsdecode
    }

    /// Which of gpsd's programs it reports as.
    let reporting: Reporting

    init(reporting: Reporting = .daemon) {
        self.reporting = reporting
    }

    /// The current cycle's fix, merged so far.
    var fix = GPSDFix()
    /// The current cycle's time of day in seconds, once a sentence has given one.
    var cycleTimeOfDay: Double?
    /// The receiver's epoch as gpsd last reported it: its fix, and the receiver's time of day then.
    var reported: (fix: GPSDFix, timeOfDay: Double?)?
    /// The skies completed in the current cycle, reported after its fix.
    var skies: [Report] = []
    /// The receiver's time of day in the last sentence that gave one (seconds), whether gpsd
    /// counted it or not (an invalid RMC's, a ZDA's): what tells the receiver's epochs apart.
    var receiverTimeOfDay: Double?

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
    var cycleEndReliable = false     // gpsd's cycle_end_reliable: else it reports at every position or mode
    var cycleContinues = false       // a DBT was seen: every sentence after it ends a cycle
    var errorModel = GPSDErrorModel()  // holds the fix after the last timed sentence, and the one before
    var lastGGATalker: UInt8 = 0
    var lastGGATimestamp: Substring = ""
    var ggaTimestampRepeats = false  // gpsd's latch_mode: a GGA whose time did not advance

    // What gpsd holds of the receiver between cycles.
    var dilutions = GPSDDilutions()
    var sky = GPSDSky()
    var satellitesUsed: [Int] = []   // PRNs, from GSA
    var lastGSATalker: UInt8 = 0
    var seenOtherGSA = false         // a GSA of a constellation other than GPS (GL, GA, BD, GN...)
    var lastGSVTalker: UInt8 = 0
    var seenOtherGSV = false

    /// The fix after the last sentence with a time (gpsd's `lastfix`).
    var lastFix: GPSDFix { errorModel.lastFix }
    /// The last fix of an earlier time (gpsd's `oldfix`).
    var oldFix: GPSDFix { errorModel.oldFix }

    /// What one sentence sets, as gpsd's mask bits.
    struct Changes: OptionSet {
        let rawValue: Int
        static let time = Changes(rawValue: 1 << 0)
        static let position = Changes(rawValue: 1 << 1)
        static let mode = Changes(rawValue: 1 << 2)
        static let altitude = Changes(rawValue: 1 << 3)
        static let speed = Changes(rawValue: 1 << 4)
        static let course = Changes(rawValue: 1 << 5)
        static let status = Changes(rawValue: 1 << 6)
        /// gpsd's REPORT_IS set by a sentence itself (an RMC without a time: report at once).
        static let report = Changes(rawValue: 1 << 7)
        /// gpsd's SATELLITE_SET: a sky completed.
        static let satellites = Changes(rawValue: 1 << 8)
        /// Anything else gpsd notes (dilutions, error estimates, a heading, a depth...). gpsd sends
        /// reports for a sentence only when it set something: a cycle that ends with a sentence
        /// that set nothing is not reported then.
        static let data = Changes(rawValue: 1 << 9)
    }

    /// Reads `sentence`. Returns the reports it completes: when it starts a new cycle, the one
    /// before (if gpsd reported it) and its skies; when gpsd reports within a cycle for another
    /// epoch of the receiver (another time of day, or none after a time: the receiver lost its
    /// fix), the earlier report.
    mutating func read(_ sentence: NMEASentence) -> [Report] {
        let type = sentence.type
        // `!` sentences are AIS, not a fix. gpsd drops sentences longer than 102 bytes with their
        // line end: two sentences run together (a Garmin GPS-10 fault), or noise.
        guard sentence.text.first == "$", sentence.text.utf8.count <= 100 else { return [] }
        // gpsd counts the fields after the address, plus one when there is a checksum.
        let count = sentence.fields.count - (sentence.hasChecksum ? 0 : 1)
        let tag = Self.tag(of: sentence, count: count)
        var new = GPSDFix()
        var changes: Changes = []
        var registered: (nanoseconds: Int?, seconds: Double?)?

        func register(_ field: Substring) {
            guard !field.isEmpty else { return }
            registered = (Self.number(field).flatMap(Self.nanoseconds), NMEADecoder.timeOfDay(field))
        }

        if tag > 0 {
            switch sentence.isProprietary ? sentence.address : type {
            case "GGA": gga(sentence, &new, &changes, register)
            case "RMC": rmc(sentence, count: count, &new, &changes, register)
            case "GLL": gll(sentence, count: count, &new, &changes, register)
            case "GNS": gns(sentence, &new, &changes, register)
            case "GSA": gsa(sentence, count: count, &new, &changes)
            case "GSV": if gsv(sentence, count: count) { changes.insert(.satellites) }
            case "VTG": vtg(sentence, count: count, &new, &changes)
            case "ZDA": zda(sentence, &changes)
            case "GBS":
                register(sentence[1])  // its time starts a cycle like the others'
                gbs(sentence, &new, &changes)
            case "PGRME": pgrme(sentence, &new, &changes)
            case "PGRMZ": pgrmz(sentence, &new, &changes)
            case "PSRFEPE": psrfepe(sentence, &new, &changes, register)
            case "PMGNST": pmgnst(sentence, &new, &changes)
            default: if Self.setsOtherData(sentence) { changes.insert(.data) }
            }
            if Self.gpsdSentences[tag - 1].continuesCycle { cycleContinues = true }
        }
        if type != "GSV" { lastGSVTalker = 0 }
        if type != "GSA" { lastGSATalker = 0 }
        if changes.contains(.time) {
            new.time = year == 0 && day == 0 ? nil : utc()
        }

        // Where gpsd's cycles start and end.
        var startsCycle = false
        if let time = Self.receiverTimeOfDay(in: sentence) { receiverTimeOfDay = time }
        if let registered {
            // More than 10 ms apart, in whole nanoseconds as gpsd's timespecs have it.
            if let now = registered.nanoseconds, let before = thisTimeOfDay { startsCycle = abs(now - before) > 10_000_000 }
            thisTimeOfDay = registered.nanoseconds
            if startsCycle, lastTag > 0, !cycleEnders.contains(lastTag), !cycleContinues {
                cycleEnders.insert(lastTag)
                cycleEndReliable = true
            }
        } else if cycleContinues {
            cycleEnders.remove(lastTag)
            cycleEnders.insert(tag)
            cycleEndReliable = true
        }
        var reports = changes.contains(.report)
        if registered != nil || cycleContinues, cycleEnders.contains(tag) { reports = true }
        if registered != nil { lastTag = tag }

        // A 3D fix is not downgraded while gpsd holds a height of the fix before, unless the
        // sentence says there is no fix (RMC, which says nothing of heights, would blink 2D).
        if changes.contains(.mode), fix.mode == 3, new.mode != 1, lastFix.hasAltitude || oldFix.hasAltitude {
            new.mode = 3
        }
        if changes.contains(.satellites), !sky.satellites.isEmpty { sky.fillDilutions(&dilutions) }
        // Without a learned end of cycle, gpsd reports whatever gives a position or a mode; and
        // it reports nothing for a sentence that set nothing. (gpsdecode does neither.)
        if reporting == .daemon {
            if !cycleEndReliable, !changes.isDisjoint(with: [.position, .mode]) { reports = true }
            if changes.subtracting(.report).isEmpty { reports = false }
        }

        var completed: [Report] = []
        if startsCycle {
            completed += endCycle(startingAt: registered?.seconds)
            cycleTimeOfDay = registered?.seconds
        }
        merge(new, changes)
        errorModel.complete(&fix, sentence: new, dilutions: dilutions)
        if reports { completed += report(fix) }
        if changes.contains(.satellites) { skies.append(.sky(sky, dilutions)) }
        return completed
    }

    /// The last cycle's reports, at the end of the log.
    mutating func finish() -> [Report] {
        endCycle(startingAt: nil)
    }

    /// A report of gpsd's: it replaces the one before when both are of one epoch of the receiver
    /// (the same time of day, within 10 ms), and completes the one before otherwise, or when it
    /// has lost the time the one before had (a receiver that lost its fix and sends no time, and
    /// gpsd forgets the date). Before the receiver has sent any time of day, each report is an
    /// epoch of its own.
    private mutating func report(_ fix: GPSDFix) -> [Report] {
        var completed: [Report] = []
        if let reported {
            let sameTimeOfDay = Self.sameTimeOfDay(reported.timeOfDay, receiverTimeOfDay)
            let lostTime = reported.fix.time != nil && fix.time == nil
            if !sameTimeOfDay || lostTime { completed.append(.fix(reported.fix, timeOfDay: reported.timeOfDay)) }
        }
        reported = (fix, receiverTimeOfDay)
        return completed
    }

    /// Whether two times of day are one epoch, as gpsd tells cycles apart (10 ms).
    private static func sameTimeOfDay(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return false }
        return abs(a - b) <= 0.01
    }

    /// The cycle's reports, when a new cycle starts at `next` (a time of day) or the log ends:
    /// what gpsd last reported of its epoch, then its skies. A report of the epoch the new cycle
    /// starts (gpsd reported an invalid RMC of that time before the GGA that starts the cycle)
    /// stays, for the cycle's own reports to replace.
    private mutating func endCycle(startingAt next: Double?) -> [Report] {
        let carried = reported.flatMap { Self.sameTimeOfDay($0.timeOfDay, next) ? $0 : nil }
        defer {
            fix = GPSDFix()
            reported = carried
            skies = []
        }
        guard let reported, carried == nil else { return skies }
        return [.fix(reported.fix, timeOfDay: reported.timeOfDay)] + skies
    }

    /// The receiver's time of day in a sentence that carries one (GGA, RMC valid or not, GLL,
    /// GNS, GBS, ZDA; SiRF's PSRFEPE), in seconds.
    static func receiverTimeOfDay(in s: NMEASentence) -> Double? {
        switch s.isProprietary ? s.address : s.type {
        case "GGA", "RMC", "GNS", "GBS", "ZDA", "PSRFEPE": NMEADecoder.timeOfDay(s[1])
        case "GLL": NMEADecoder.timeOfDay(s[5])
        default: nil
        }
    }

    /// `hhmmss.ss` read as a number (as gpsd's `safe_atof` and `DTOTS` read it), in nanoseconds.
    static func nanoseconds(_ number: Double) -> Int? {
        guard abs(number) < 1e9 else { return nil }  // not a time of day
        let whole = number.rounded(.towardZero)
        return Int(whole) * 1_000_000_000 + Int((number - whole) * 1e9)
    }

    // MARK: - Merging

    /// gpsd's `gps_merge_fix`: what the sentence set goes into the cycle's fix; its errors and
    /// geoid separation whenever it has them.
    private mutating func merge(_ new: GPSDFix, _ changes: Changes) {
        if changes.contains(.time) { fix.time = new.time }
        if changes.contains(.position) {
            fix.latitude = new.latitude
            fix.longitude = new.longitude
        }
        if changes.contains(.mode) { fix.mode = new.mode }
        if changes.contains(.status), new.status > fix.status { fix.status = new.status }
        if changes.contains(.altitude) {
            if let altitude = new.altitude { fix.altitude = altitude }
        }
        if changes.contains(.speed) { fix.speed = new.speed }
        if changes.contains(.course) { fix.course = new.course }
        if let epx = new.epx, let epy = new.epy {
            fix.epx = epx
            fix.epy = epy
        }
        for error in [\GPSDFix.eph, \.epv, \.sep, \.eps, \.epd] {
            if let value = new[keyPath: error] { fix[keyPath: error] = value }
        }
        if let separation = new.geoidSeparation { fix.geoidSeparation = separation }
        if let latitude = fix.latitude, let longitude = fix.longitude, !Geodesy.isValid(latitude: latitude, longitude: longitude) {
            fix.latitude = nil
            fix.longitude = nil
        }
    }
}
