import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// A replay reads whatever file it is given: noise, damaged sentences and lies must give a
/// timeline that plays (offsets that never go back, positions on the globe), never a crash.
@Suite("NMEA logs that are damaged or hostile")
struct NMEAHostileInputTests {
    /// What any decoded log must be.
    func expectPlayable(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let timeline = NMEADecoder().decode(text).timeline
        #expect(zip(timeline, timeline.dropFirst()).allSatisfy { $0.offset <= $1.offset }, "offsets go back", sourceLocation: sourceLocation)
        for fix in timeline.compactMap(\.event.location) {
            #expect(abs(fix.latitude) <= 90 && abs(fix.longitude) <= 180, "\(fix)", sourceLocation: sourceLocation)
            #expect(fix.mode >= .fix2D, sourceLocation: sourceLocation)
        }
        let log = NMEALog(text: text)
        #expect(zip(log.epochs, log.epochs.dropFirst()).allSatisfy { $0.offset <= $1.offset }, sourceLocation: sourceLocation)
    }

    @Test func sentencesThatLie() {
        let lies = [
            "GPGGA,00001e308,5128.67568,N,00000.09270,W,1,08,0.9,1e999,M,45.6,M,,",  // a time and an altitude past any number
            "GPRMC,999999.999999999999,A,9999.99999,N,99999.99999,E,1.2,90.0,999999,,,A",  // off the calendar and the globe
            "GPRMC,100000.00,A,99999999999999999999.5,S,-0.5,W,nan,inf,010524,,,A",
            "GPGGA,100001.00,.5,N,.5,E,1,99999999999999999999999,0.9,30.0,M,,M,,",
            "GPGSA,A,3" + String(repeating: ",1", count: 200) + ",1.6,0.9,1.3",
            "GPZDA,100002.00,31,02,2200,00,00",
            "GNGNS,100003.00,5128.67568,N,00000.09270,W,AAAAAA,10,0.8,30.0,45.6,,,S,extra,fields",
            "GPGLL,5128.67568,N,00000.09270,W,235959.99,A,A",
            "GPGLL,5128.67568,N,00000.09270,W,000000.00,A,A",
            "GPGBS,12.5,1,1,1,,,,",
        ]
        expectPlayable(lies.map(NMEAEncoder.sentence).joined())
    }

    @Test func timesOfDayThatGoBackAndForthOverMidnight() {
        // Each swing back by more than half a day is a new day: offsets grow, and never overflow.
        let text = (0..<2_000).map { index in
            NMEAEncoder.sentence("GPGGA,\(index % 2 == 0 ? "235959.00" : "000000.00"),5128.67568,N,00000.09270,W,1,08,0.9,30.0,M,45.6,M,,")
        }.joined()
        expectPlayable(text)
        let timeline = NMEADecoder().decode(text).timeline
        #expect(timeline.count == 2_000)
        #expect(timeline.last?.offset == .seconds(999 * 86_400 + 1))
    }

    @Test func damagedCopiesOfOurFixtures() throws {
        let folder = Repository.fixture("nmea")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".nmea") && $0 != "greenwich-walk.nmea" }.sorted()
        let original = Array(try names.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined().utf8)
        let palette = Array("0123456789,.*$!-ANVSEWP\r\n #".utf8) + [0x00, 0xFF, 0xC3]
        var random = SplitMix64(seed: 2024)
        for _ in 0..<200 {
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 40)) {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[index] = palette[Int(random.next() % UInt64(palette.count))]
                case 1: bytes.remove(at: index)
                default:
                    let copy = Array(bytes[index..<min(bytes.count, index + Int(random.next() % 80))])
                    bytes.insert(contentsOf: copy, at: index)
                }
            }
            expectPlayable(String(decoding: bytes, as: UTF8.self))
        }
    }
}

/// A small seeded generator, so that every run damages the fixtures the same way.
private struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension NMEAHostileInputTests {
    /// An NMEA log of waypoints only (`$GPWPL`, as a GPS exports its stored waypoints) is NMEA,
    /// and says it has no sentence with a position, rather than that it has no sentence.
    @Test func aLogOfWaypointsOnlySaysItHasNoPositionSentences() throws {
        let file = NSTemporaryDirectory() + "waypoints-\(UUID().uuidString).nmea"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let text = [
            "GPWPL,5128.66800,N,00000.09270,W,OBSERVATORY", "GPWPL,5128.50000,N,00000.05000,W,PIER", "GPRTE,1,1,c,0,OBSERVATORY,PIER",
        ].map(NMEAEncoder.sentence).joined()
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try ReplayRecording(contentsOf: URL(fileURLWithPath: file))
        } throws: { error in
            let reason = (error as? ReplayRecording.ReadError)?.reason ?? ""
            return reason.contains("no sentence with a position") && reason.contains("$GPWPL, $GPRTE only")
        }
    }
}
