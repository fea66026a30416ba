import FIT
import Foundation
import Testing
import TestSupport

/// The public FIT corpus (`../shared/corpora/fit` beside the repository: CI has it, a fresh clone
/// does not), read in place, never copied into the project, and compared with Garmin's decoder
/// (PyPI garmin-fit-sdk) and fitdecode run on the same files at test time.
///
/// Where Garmin's decoder reads a file without error, we read the same records (times, positions,
/// heart rate, cadence, power, altitude, speed, temperature), laps, sessions and timer events, and
/// a strict read accepts the file. Where it reports an error, we report an issue where the damage
/// begins (a strict read refuses the file with it), and the byte each peer names lies inside the
/// item we name (`peerOffsetsLieInTheDamageWeReport`); we read what fitdecode reads, except where
/// Garmin's error is a limit of its own (`garminLimits`). fitdecode and we read the same records
/// in every file.
@Suite("FIT corpus against Garmin's decoder and fitdecode")
struct FITCorpusTests {
    static let folder = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/fit")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.lowercased().hasSuffix(".fit") }.sorted()
    static let isPresent = files.count >= 40

    /// Errors of Garmin's decoder that are its limits, not the file's faults: we read these files
    /// whole, as fitdecode does.
    static let garminLimits = [
        "Compressed timestamp messages are not currently supported",
    ]

    /// Both peers' readings of every file, read once (the Python decoders take a few seconds).
    /// (A task the test cases await: a lazy `static let` that ran them held every case that
    /// touched it, and with them the concurrency threads of the whole run, for those seconds.)
    static let peers = Task<[String: FITPeers.Readings], Never> {
        guard isPresent, FITPeers.isAvailable else { return [:] }
        return (try? await FITPeers.read(files.map { folder.appendingPathComponent($0).path })) ?? [:]
    }

    @Test(.enabled(if: isPresent, "the FIT corpus is not at ../shared/corpora/fit"),
          .enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"),
          arguments: files)
    func readsWhatThePeersRead(_ name: String) async throws {
        let path = Self.folder.appendingPathComponent(name).path
        let peer = try #require(await Self.peers.value[path], "the peers did not read \(name)")
        let ours = FITReading.read(path)
        let strict = FITReading.read(path, strict: true)
        #expect(ours.error == nil, "\(name): a lenient read does not throw on a file that begins as FIT: \(String(describing: ours.error))")
        #expect(Self.same(ours.records, peer.fitdecode.records), "\(name): records, against fitdecode")
        #expect(Self.same(ours.laps, peer.fitdecode.laps), "\(name): laps, against fitdecode")
        #expect(Self.same(ours.sessions, peer.fitdecode.sessions), "\(name): sessions, against fitdecode")
        let garminErrors = peer.garmin.errors ?? []
        let limited = garminErrors.contains { error in Self.garminLimits.contains { error.contains($0) } }
        if garminErrors.isEmpty || limited {
            if !limited {
                #expect(Self.same(ours.records, peer.garmin.records), "\(name): records, against Garmin's decoder")
                #expect(Self.same(ours.laps, peer.garmin.laps), "\(name): laps, against Garmin's decoder")
                #expect(Self.same(ours.sessions, peer.garmin.sessions), "\(name): sessions, against Garmin's decoder")
                #expect(Self.same(ours.timerEvents, peer.garmin.timerEvents), "\(name): timer events, against Garmin's decoder")
                #expect(ours.fileTypes == peer.garmin.fileTypes, "\(name): file types")
            }
            #expect(ours.summary.issues.isEmpty, "\(name): \(ours.summary.issues)")
            #expect(strict.error == nil, "\(name): a strict read accepts it: \(String(describing: strict.error))")
        } else {
            let issue = try #require(ours.summary.issues.first, "\(name): Garmin's decoder says \(garminErrors); we say nothing")
            #expect(strict.error == issue.error, "\(name): a strict read refuses it with the issue a lenient one reports")
            #expect(peer.fitdecode.error != nil, "\(name): fitdecode stops too")
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            Self.peerOffsetsLieInTheDamageWeReport(issue, size: size, peers: garminErrors + [peer.fitdecode.error].compactMap { $0 }, name)
        }
    }

    /// We report damage where it begins: the first byte of the record, header or CRC it lies in.
    /// The peers name a byte of that same item: Garmin's decoder the byte after what it read of it
    /// (the CRC's 2 bytes, a record's header byte), or no byte for a file cut short; fitdecode
    /// where it stopped reading. So each byte a peer names lies from our offset to the end of
    /// what it read of the item: 2 bytes on for a CRC, 1 for a record or header, and up to the
    /// end of the file for a file cut short (the cut record runs to it). At least one peer names one.
    static func peerOffsetsLieInTheDamageWeReport(_ issue: FITIssue, size: Int, peers: [String], _ name: String) {
        let named = peers.flatMap(Self.offsets(in:))
        #expect(!named.isEmpty, "\(name): no peer names a byte: \(peers)")
        let reach = switch issue.error {
        case .truncated: size
        case .badCRC: issue.offset + 2
        default: issue.offset + 1
        }
        for offset in named {
            #expect((issue.offset...reach).contains(offset), "\(name): a peer names byte \(offset); we report \(issue)")
        }
    }

    /// The bytes a peer's error names: Garmin's `at byte: N`, fitdecode's `@ N` and `footer offset: N`.
    static func offsets(in error: String) -> [Int] {
        ["at byte: ", "@ ", "footer offset: "].compactMap { marker -> Int? in
            guard let range = error.range(of: marker) else { return nil }
            return Int(error[range.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test(.enabled(if: isPresent, "the FIT corpus is not at ../shared/corpora/fit"))
    func eachDamagedFileIsReportedWithItsOffset() {
        // What each broken file is, and what we say of it: a record of today's offsets, checked
        // where the peers cannot be run (readsWhatThePeersRead holds them to the peers' bytes).
        let expected: [String: (offset: Int, kind: String)] = [
            "activity-filecrc.fit": (769, "bad CRC"),
            "activity-activity-filecrc.fit": (1540, "bad CRC"),
            "activity-settings-corruptheader.fit": (771, "not another FIT file"),
            "activity-settings-nodata.fit": (783, "truncated"),
            "activity-unexpected-eof.fit": (751, "truncated"),
            "nick.fit": (403437, "truncated"),
            "strava-android-app-201.10-b1218918.fit": (7471, "which no definition message gave"),
        ]
        for (name, (offset, kind)) in expected {
            let reading = FITReading.read(Self.folder.appendingPathComponent(name).path)
            #expect(reading.summary.issues.map(\.offset) == [offset], "\(name): \(reading.summary.issues)")
            #expect(reading.summary.issues.first?.description.contains(kind) == true, "\(name): \(reading.summary.issues)")
        }
    }

    static func same(_ a: [[Double?]], _ b: [[Double?]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
    }

    static func same(_ a: [Double?], _ b: [Double?]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            switch (x, y) {
            case (nil, nil): true
            case let (x?, y?): abs(x - y) <= 1e-6 * max(1, abs(x))
            default: false
            }
        }
    }
}
