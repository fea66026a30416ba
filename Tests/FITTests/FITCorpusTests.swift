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
/// a strict read accepts the file. Where it reports an error, we report an issue at the same
/// place (a strict read refuses the file) and read what fitdecode reads, except where its error is
/// a limit of its own (`garminLimits`). fitdecode and we read the same records in every file.
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
    static let peers: [String: FITPeers.Readings] = {
        guard isPresent, FITPeers.isAvailable else { return [:] }
        return (try? FITPeers.read(files.map { folder.appendingPathComponent($0).path })) ?? [:]
    }()

    @Test(.enabled(if: isPresent, "the FIT corpus is not at ../shared/corpora/fit"),
          .enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"),
          arguments: files)
    func readsWhatThePeersRead(_ name: String) throws {
        let path = Self.folder.appendingPathComponent(name).path
        let peer = try #require(Self.peers[path], "the peers did not read \(name)")
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
            // Garmin's decoder names the byte it stopped at, or the end of the file; fitdecode the
            // same. We report where the damage begins: the record or CRC it lies in.
            let issue = try #require(ours.summary.issues.first, "\(name): Garmin's decoder says \(garminErrors); we say nothing")
            #expect(strict.error == issue.error, "\(name): a strict read refuses it with the issue a lenient one reports")
            #expect(peer.fitdecode.error != nil, "\(name): fitdecode stops too")
        }
    }

    @Test(.enabled(if: isPresent, "the FIT corpus is not at ../shared/corpora/fit"))
    func eachDamagedFileIsReportedWithItsOffset() {
        // What each broken file is, and what we say of it (checked without the peers too).
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
