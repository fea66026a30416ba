import FIT
import Foundation
import TestSupport
import Testing
@testable import Workout

/// `workout import` on the public FIT corpus (`../shared/corpora/fit`, read in place, never copied
/// into the project): every file Garmin's decoder reads is imported with the records it reads (its
/// points and samples, by the importer's documented rules applied to the peer's records), every
/// file it rejects is refused or imported in part with the reason, and every file that is not an
/// activity, or has no records, is named as such.
@Suite("FIT corpus import", .tags(.corpus),
       .disabled(if: ThreadSanitizer.isRunning, "42 files and the Python peers, ten times slower under TSan: the smaller FIT and TCX import tests run there"))
struct FITCorpusImportTests {
    static let folder = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/fit")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.lowercased().hasSuffix(".fit") }.sorted()
    static let isPresent = files.count >= 40
    /// (A task the test cases await: a lazy `static let` that ran them held every case that
    /// touched it, and with them the concurrency threads of the whole run, for those seconds.)
    static let peers = Task<[String: FITPeers.Readings], Never> {
        guard isPresent, FITPeers.isAvailable else { return [:] }
        return (try? await FITPeers.read(files.map { folder.appendingPathComponent($0).path })) ?? [:]
    }

    @Test(.enabled(if: isPresent, "the FIT corpus is not at ../shared/corpora/fit"),
          .enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"),
          arguments: files)
    func importsWhatThePeersRead(_ name: String) async throws {
        let path = Self.folder.appendingPathComponent(name).path
        let peer = try #require(await Self.peers.value[path])
        let store = try WorkoutStore.inMemory()
        let report = try await FITImporter(store: store).importFile(at: path)
        // The records of the peer that read the file whole (Garmin's, unless it stopped).
        let reading = (peer.garmin.errors ?? []).isEmpty ? peer.garmin : peer.fitdecode
        let expected = Expected(reading.records)
        // A chain's files that repeat an activity (the corpus has one) are one workout.
        let imported = report.saved.reduce(into: (points: 0, heartRates: 0)) { sum, workout in
            sum.points += workout.points
        }
        var heartRates = 0
        for workout in report.saved {
            heartRates += try await store.samples(of: workout.workoutID, type: .heartRate).count
        }
        #expect(imported.points == expected.points, "\(name): points")
        #expect(heartRates == expected.heartRates, "\(name): heart rates")
        let types = reading.fileTypes.compactMap { $0 }
        if !types.contains(4) {
            #expect(report.workouts.isEmpty, "\(name): not an activity")
            #expect(report.notImported.allSatisfy { $0.reason.contains("not a recorded") || $0.reason.contains("course") }, "\(name): \(report.notImported)")
        } else if expected.points + expected.values == 0 {
            #expect(report.workouts.isEmpty && !report.notImported.isEmpty, "\(name): nothing to import, said so")
        } else {
            #expect(!report.workouts.isEmpty, "\(name)")
        }
        if !(peer.garmin.errors ?? []).isEmpty, peer.fitdecode.error != nil {
            #expect(!report.read.issues.isEmpty, "\(name): a damaged file is imported in part, with the reason")
        }
        #expect(try await store.checkIntegrity().isEmpty)
    }

    /// What the importer keeps of a peer's records, by its rules: a date (not a time since power-up),
    /// time order, no jump of more than a day (damage), no exact repeat of the point before; one
    /// heart rate per time; and a record dated more than ten minutes ahead of the record after it,
    /// which goes back, skipped as the odd one out (the first record too). (The importer also lets
    /// a record held through after 1,024 messages behind it; the peers' records alone cannot say
    /// that, and no corpus file comes near it.)
    struct Expected {
        var points = 0
        var heartRates = 0
        /// Records with any value to keep as a sample.
        var values = 0
        private var last: Double?
        private var lastPoint: [Double?]?
        private var lastHeartRateTime: Double?
        private var held: (record: [Double?], after: [[Double?]])?

        init(_ records: [[Double?]]) {
            for record in records { take(record) }
            while let waiting = held {
                held = nil
                admit(waiting.record)
                for record in waiting.after { take(record) }
            }
        }

        /// The record's time if the importer can take it after the last one.
        private func admissible(_ record: [Double?]) -> Double? {
            guard let time = record[0], time >= 0x1000_0000 else { return nil }
            if let last, time < last || time - last > 86_400 { return nil }
            return time
        }

        private mutating func take(_ record: [Double?]) {
            if let time = admissible(record) {
                if let waiting = held {
                    held = nil
                    if waiting.record[0]! - time <= 600 { admit(waiting.record) }
                    for later in waiting.after { take(later) }
                    return take(record)
                }
                if last.map({ time - $0 > 600 }) ?? true {
                    held = (record, [])
                    return
                }
            } else if held != nil {
                held!.after.append(record)
                return
            }
            admit(record)
        }

        private mutating func admit(_ record: [Double?]) {
            guard let time = admissible(record) else { return }
            last = time
            if record[3...8].contains(where: { $0 != nil }) { values += 1 }
            if record[3] != nil, lastHeartRateTime != time {
                heartRates += 1
                lastHeartRateTime = time
            }
            guard let lat = record[1], let lon = record[2], abs(lat) <= 1_073_741_824, abs(lon) <= 2_147_483_648 else { return }
            let point = [time, lat, lon, record[6]]
            if point != lastPoint { points += 1 }
            lastPoint = point
        }
    }
}
