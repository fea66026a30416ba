import FIT
import Foundation

/// A small FIT activity written by our FITWriter from a list of what happened, in file order: for
/// tests of the importer's rules on shapes no fixture has (a timer started after the last record,
/// a record dated far ahead). Times are seconds after ``start``.
struct FITActivityScript {
    enum Step {
        /// A `record` at `second`, with a position (a metre north per second) and a heart rate,
        /// unless `position` is false or `heartRate` nil.
        case record(Double, position: Bool = true, heartRate: Double? = 120)
        /// A timer `event`: start, or stop all (`automatic`: auto-pause).
        case timer(starts: Bool, at: Double, automatic: Bool = false)
        /// A `lap` message ending at `end`, begun at `start`, ended by `trigger` (0 manual, 1 time, 2 distance).
        case lap(start: Double, end: Double, trigger: UInt8)
        /// A message of a type no profile knows, of 255 fields of 255 bytes (65 KB).
        case filler
        /// A `record` at `second` without a position, with the device's `distance` (metres since
        /// the start: a treadmill's, a trainer's) and a heart rate.
        case indoorRecord(Double, distance: Double, heartRate: Double = 120)
        /// A `session` from 0 s to `end`, of `sport` and `subSport`.
        case session(end: Double, sport: UInt8, subSport: UInt8)
    }

    /// 2024-05-01T07:00:00Z.
    static let start = 1_714_546_800.0

    var steps: [Step]

    init(_ steps: [Step]) {
        self.steps = steps
    }

    static func fitTime(_ second: Double) -> Int64 {
        Int64(FITTime.value(fromSeconds: start + second)!)
    }

    /// The file's bytes: `file_id` (activity), a timer start at 0 s, then the steps.
    var bytes: [UInt8] {
        FITWriter.file { writer in
            writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [
                FITFieldDefinition(number: 0, baseType: .enumeration), FITFieldDefinition(number: 4, baseType: .uint32),
            ])
            writer.write(localType: 0, values: [.integer(Int64(FITFileType.activity.rawValue)), .integer(Self.fitTime(0))])
            writer.define(localType: 1, globalNumber: FITMessageNumber.record, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .sint32),
                FITFieldDefinition(number: 1, baseType: .sint32), FITFieldDefinition(number: 3, baseType: .uint8),
            ])
            writer.define(localType: 2, globalNumber: FITMessageNumber.event, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .enumeration),
                FITFieldDefinition(number: 1, baseType: .enumeration), FITFieldDefinition(number: 3, baseType: .uint32),
            ])
            writer.define(localType: 3, globalNumber: FITMessageNumber.lap, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 2, baseType: .uint32),
                FITFieldDefinition(number: 24, baseType: .enumeration),
            ])
            writer.define(localType: 4, globalNumber: 0xFF00, fields: (0..<255).map {
                FITFieldDefinition(number: UInt8($0), baseType: .byte, size: 255)
            })
            writer.define(localType: 5, globalNumber: FITMessageNumber.record, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 5, baseType: .uint32),
                FITFieldDefinition(number: 3, baseType: .uint8),
            ])
            writer.define(localType: 6, globalNumber: FITMessageNumber.session, fields: [
                FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 2, baseType: .uint32),
                FITFieldDefinition(number: 5, baseType: .enumeration), FITFieldDefinition(number: 6, baseType: .enumeration),
            ])
            writer.write(localType: 2, values: [.integer(Self.fitTime(0)), .integer(0), .integer(0), .integer(0)])
            for step in steps {
                switch step {
                case let .record(second, position, heartRate):
                    let latitude = Int64(FITSemicircles.semicircles(51.5 + second * 0.000_009))
                    writer.write(localType: 1, values: [
                        .integer(Self.fitTime(second)), position ? .integer(latitude) : nil, position ? .integer(0) : nil,
                        heartRate.map { .integer(Int64($0)) },
                    ])
                case let .timer(starts, second, automatic):
                    writer.write(localType: 2, values: [
                        .integer(Self.fitTime(second)), .integer(0), .integer(starts ? 0 : 4), .integer(automatic ? 1 : 0),
                    ])
                case let .lap(start, end, trigger):
                    writer.write(localType: 3, values: [.integer(Self.fitTime(end)), .integer(Self.fitTime(start)), .integer(Int64(trigger))])
                case .filler:
                    writer.write(localType: 4, values: [])
                case let .indoorRecord(second, distance, heartRate):
                    writer.write(localType: 5, values: [
                        .integer(Self.fitTime(second)), .integer(Int64((distance * 100).rounded())), .integer(Int64(heartRate)),
                    ])
                case let .session(end, sport, subSport):
                    writer.write(localType: 6, values: [
                        .integer(Self.fitTime(end)), .integer(Self.fitTime(0)), .integer(Int64(sport)), .integer(Int64(subSport)),
                    ])
                }
            }
        }
    }

    /// Writes the file into `folder` as `name`; returns its path.
    func write(to folder: TemporaryFolder, as name: String = "activity.fit") throws -> String {
        let path = folder.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The date `second` seconds after ``start``.
    static func date(_ second: Double) -> Date {
        Date(timeIntervalSince1970: start + second)
    }
}
