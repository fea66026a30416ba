import FIT
import Foundation
import TestSupport
import Testing
@testable import Workout

/// Issue 24: a FIT file whose records are dated in the device's system time (FIT `date_time`
/// values below 0x10000000 are seconds since the device powered up) is placed in UTC through the
/// anchor the file gives, `timestamp_correlation` (162) or `gps_metadata.utc_timestamp` (160).
///
/// Where the case came from: a Garmin VIRB action camera's file, which dates its records so and
/// writes a `timestamp_correlation` among them; the import refused it ("none of its records has a
/// date") where Garmin's decoder and gpsbabel read its 145 positioned records. That file is not
/// ours to copy into the project, so the test writes one of the same shape with our FIT encoder:
/// records in system time before and after the correlation (which a VIRB writes once the GPS has
/// the date), timer events in system time, and checks it with Garmin's decoder.
@Suite(.timeLimit(.minutes(1))) struct FITSystemTimeTests {
    /// The device powered up 1,000 s before the first record.
    static let firstRecord: Int64 = 1_000
    /// The UTC time of system time 1,000 (and a quarter second): 2024-05-01T07:00:00.25Z.
    static let utcOfFirstRecord = 1_714_546_800.25

    enum Anchor {
        case correlation, gpsMetadata, none
    }

    /// A VIRB-like activity of `count` records a second apart in system time, with the anchor
    /// written after the third record.
    static func virbFile(anchor: Anchor, count: Int = 10) -> [UInt8] {
        FITWriter.file { writer in
            writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [
                FITFieldDefinition(number: 0, baseType: .enumeration), FITFieldDefinition(number: 1, baseType: .uint16),
                FITFieldDefinition(number: 4, baseType: .uint32),
            ])
            // Manufacturer 1 (Garmin); time_created in system time, as the camera writes it.
            writer.write(localType: 0, values: [.integer(Int64(FITFileType.activity.rawValue)), .integer(1), .integer(firstRecord)])
            writer.define(localType: 1, globalNumber: FITMessageNumber.record, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .sint32),
                FITFieldDefinition(number: 1, baseType: .sint32), FITFieldDefinition(number: 2, baseType: .uint16),
            ])
            writer.define(localType: 2, globalNumber: FITMessageNumber.event, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .enumeration),
                FITFieldDefinition(number: 1, baseType: .enumeration), FITFieldDefinition(number: 3, baseType: .uint32),
            ])
            writer.define(localType: 3, globalNumber: 162, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .uint16),
                FITFieldDefinition(number: 1, baseType: .uint32), FITFieldDefinition(number: 2, baseType: .uint16),
            ])
            writer.define(localType: 4, globalNumber: 160, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .uint16),
                FITFieldDefinition(number: 6, baseType: .uint32),
            ])
            writer.write(localType: 2, values: [.integer(firstRecord), .integer(0), .integer(0), .integer(0)])
            let utc = Int64(FITTime.value(fromSeconds: utcOfFirstRecord)!)
            for index in 0..<count {
                let system = firstRecord + Int64(index)
                writer.write(localType: 1, values: [
                    .integer(system), .integer(Int64(FITSemicircles.semicircles(51.5 + Double(index) * 0.000_01))),
                    .integer(Int64(FITSemicircles.semicircles(-0.1))), .integer(Int64((20 + 500) * 5)),
                ])
                guard index == 2 else { continue }
                switch anchor {
                case .correlation:
                    // UTC 07:00:02.25 (8,192/32,768 s past the second) is system time 1,002.
                    writer.write(localType: 3, values: [.integer(utc + 2), .integer(8_192), .integer(system), .integer(0)])
                case .gpsMetadata:
                    // The fix at system time 1,002.250 s was UTC 07:00:02.000: system time 1,000 is
                    // 06:59:59.750, half a second before the correlation's.
                    writer.write(localType: 4, values: [.integer(system), .integer(250), .integer(utc + 2)])
                case .none:
                    break
                }
            }
            writer.write(localType: 2, values: [.integer(firstRecord + Int64(count)), .integer(0), .integer(4), .integer(0)])
        }
    }

    @Test(arguments: [Anchor.correlation, .gpsMetadata])
    func recordsInSystemTimeArePlacedInUTCByTheFilesAnchor(anchor: Anchor) async throws {
        let folder = try TemporaryFolder()
        let file = folder.file("virb.fit")
        try Data(Self.virbFile(anchor: anchor)).write(to: URL(fileURLWithPath: file))
        let store = try WorkoutStore.inMemory()
        let report = try await FITImporter(store: store).importFile(at: file)
        let imported = try #require(report.workouts.first, "\(report.notImported)")
        #expect(imported.points == 10 && imported.skipped.isEmpty, "every record, the three before the anchor too: \(imported.skipped)")
        let route = try await readRoute(store, imported.workoutID)
        // The correlation gives UTC to 1/32,768 s; GPS metadata to the millisecond (its anchor is
        // half a second earlier, as written).
        let first = Self.utcOfFirstRecord - (anchor == .gpsMetadata ? 0.5 : 0)
        for (index, point) in route.enumerated() {
            let time = try #require(point.location.time).timeIntervalSince1970
            #expect(abs(time - (first + Double(index))) < 0.001, "record \(index) at \(time)")
        }
        #expect(abs(imported.workout.end.timeIntervalSince1970 - (first + 10)) < 0.001, "the timer's stop, in system time, dated too")

        // Garmin's decoder reads the file we wrote whole: the same ten records, dated in system time.
        guard FITPeers.isAvailable else { return }
        let peers = try #require(try await FITPeers.read([file])[file])
        #expect(peers.garmin.errors == [] && peers.garmin.integrity == true)
        #expect(peers.garmin.records.count == 10 && peers.garmin.records.allSatisfy { ($0[0] ?? 0) < 0x1000_0000 && $0[1] != nil })
    }

    @Test func withoutAnAnchorTheRecordsHaveNoDateAndNothingIsImported() async throws {
        let folder = try TemporaryFolder()
        let file = folder.file("virb.fit")
        try Data(Self.virbFile(anchor: .none)).write(to: URL(fileURLWithPath: file))
        let report = try await FITImporter(store: try WorkoutStore.inMemory()).importFile(at: file)
        #expect(report.workouts.isEmpty)
        let refusal = try #require(report.notImported.first)
        #expect(refusal.reason == "none of its records has a date and a position or a value to keep")
        #expect(refusal.skipped.count == 10 && refusal.skipped.allSatisfy { $0.reason.contains("a time since the device started") })
    }
}
