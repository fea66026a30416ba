import FIT
import Foundation

/// Writes a workout as a FIT activity file, message by message, as the FIT "Activity File"
/// recipe lays it out: `file_id` (type activity) first, `device_info` of the creator, our
/// `developer_data_id` and `field_description`s (``FITWorkoutFields``), a timer start, then
/// `record`s with the workout's `event`s where they happened and `hrv` messages with its
/// beat-to-beat intervals, the last timer stop, a `lap` per lap, one `session` and one `activity`.
///
/// Every record has the same layout, chosen from what the workout holds: the timestamp; position,
/// altitude (both fields, as devices write them), distance and speed when it has a route; heart
/// rate, cadence (with `fractional_cadence`), power, temperature when it has such samples. A value
/// a record lacks is written as its field's invalid value. The first record of each route segment
/// after the first carries our `segment` field (a second record layout, local type 9).
///
/// The encoder only measures (its ``writer`` has no header): the caller writes the header once
/// the data's size is known, then the data, then the CRC.
struct FITActivityEncoder {
    /// Local message types.
    enum Local: UInt8 {
        case fileID = 0, deviceInfo, event, record, lap, session, activity, hrv, workoutEvent, segmentRecord
        case developerDataID, fieldDescription, sport, workoutStart
    }

    /// Measuring: it writes the records alone (the caller writes the header and the CRC).
    var writer = FITWriter(dataSize: nil)
    let hasRoute: Bool
    let types: Set<QuantityType>
    /// Whether records carry a `distance` without a position (a workout without a route whose
    /// distance a wheel, a foot pod or a trainer measured).
    let distances: Bool
    /// The layout of a record's fields, in order.
    private(set) var recordFields: [FITFieldDefinition] = []
    /// The bytes of one message's content, reused.
    var scratch: [UInt8] = []

    init(hasRoute: Bool, types: [QuantityType], distances: Bool = false) {
        self.hasRoute = hasRoute
        self.types = Set(types)
        self.distances = distances
        scratch.reserveCapacity(256)
    }

    static func field(_ number: UInt8, _ type: FITBaseType, size: Int? = nil) -> FITFieldDefinition {
        FITFieldDefinition(number: number, baseType: type, size: size)
    }

    /// Hands the bytes written so far to `body` and forgets them.
    mutating func drain(_ body: (UnsafeRawBufferPointer) throws(WorkoutStoreError) -> Void) throws(WorkoutStoreError) {
        guard !writer.bytes.isEmpty else { return }
        var failure: WorkoutStoreError?
        writer.drain { bytes in
            do throws(WorkoutStoreError) { try body(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// `file_id`, `device_info`, our developer fields' descriptions, the `sport` (with its
    /// `sub_sport`: indoor cycling, treadmill...), the layouts of events, records and `hrv`, and
    /// the timer's start (`startMilliseconds` past `start` in our fields, with `workout_event`
    /// `start`: the workout's start, which its first record may come after; and how the distance
    /// was counted, and whether indoors, when known: the import needs them before the records).
    mutating func begin(
        start: UInt32, startMilliseconds: UInt16, serial: UInt32, device: String, beats: Bool, sport: UInt8, subSport: UInt8,
        counting: WorkoutEnvelope.DistanceCounting?, indoor: Bool?
    ) {
        writer.define(localType: Local.fileID.rawValue, globalNumber: FITMessageNumber.fileID, fields: [
            Self.field(0, .enumeration), Self.field(1, .uint16), Self.field(2, .uint16), Self.field(3, .uint32z),
            Self.field(4, .uint32), Self.field(8, .string, size: 20),
        ])
        writer.write(localType: Local.fileID.rawValue, values: [
            .integer(Int64(FITFileType.activity.rawValue)), .integer(Int64(FITManufacturer.development)), .integer(0),
            .integer(Int64(serial)), .integer(Int64(start)), .string("swift-gps-facade"),
        ])
        writer.define(localType: Local.deviceInfo.rawValue, globalNumber: FITMessageNumber.deviceInfo, fields: [
            Self.field(253, .uint32), Self.field(0, .uint8), Self.field(2, .uint16), Self.field(3, .uint32z), Self.field(4, .uint16),
            Self.field(5, .uint16), Self.field(27, .string, size: 64),
        ])
        writer.write(localType: Local.deviceInfo.rawValue, values: [
            .integer(Int64(start)), .integer(0), .integer(Int64(FITManufacturer.development)), .integer(Int64(serial)), .integer(0),
            .integer(100), .string(device),
        ])
        describeOurFields()
        writer.define(
            localType: Local.sport.rawValue, globalNumber: FITMessageNumber.sport, fields: [Self.field(0, .enumeration), Self.field(1, .enumeration)])
        writer.write(localType: Local.sport.rawValue, values: [.integer(Int64(sport)), .integer(Int64(subSport))])
        let eventFields = [
            Self.field(253, .uint32), Self.field(0, .enumeration), Self.field(1, .enumeration), Self.field(3, .uint32), Self.field(4, .uint8),
        ]
        writer.define(localType: Local.event.rawValue, globalNumber: FITMessageNumber.event, fields: eventFields)
        writer.define(
            localType: Local.workoutEvent.rawValue, globalNumber: FITMessageNumber.event, fields: eventFields,
            developerFields: [FITWorkoutFields.timestampMilliseconds, FITWorkoutFields.workoutEvent, FITWorkoutFields.markerName].map(\.definition))
        writer.define(
            localType: Local.workoutStart.rawValue, globalNumber: FITMessageNumber.event, fields: eventFields,
            developerFields: [
                FITWorkoutFields.timestampMilliseconds, FITWorkoutFields.workoutEvent, FITWorkoutFields.distanceSource,
                FITWorkoutFields.sensorFactor, FITWorkoutFields.indoor,
            ].map(\.definition))
        writer.write(localType: Local.workoutStart.rawValue, values: [
            .integer(Int64(start)), .integer(Int64(FITEventMessage.timer)), .integer(Int64(FITWorkoutFields.Event.start)), .integer(0),
            .integer(0), .integer(Int64(startMilliseconds)), .string(FITWorkoutFields.workoutStart),
            counting.map { .string($0.source.rawValue) }, counting.map { .float($0.sensorFactor) }, indoor.map { .integer($0 ? 1 : 0) },
        ])
        var fields = [Self.field(253, .uint32)]
        if hasRoute {
            fields += [Self.field(0, .sint32), Self.field(1, .sint32), Self.field(2, .uint16), Self.field(78, .uint32)]
        }
        if hasRoute || distances { fields.append(Self.field(5, .uint32)) }
        if hasRoute || types.contains(.speed) { fields += [Self.field(6, .uint16), Self.field(73, .uint32)] }
        if types.contains(.heartRate) { fields.append(Self.field(3, .uint8)) }
        if types.contains(.cadence) { fields += [Self.field(4, .uint8), Self.field(53, .uint8)] }
        if types.contains(.power) { fields.append(Self.field(7, .uint16)) }
        if types.contains(.temperature) { fields.append(Self.field(13, .sint8)) }
        recordFields = fields
        writer.define(localType: Local.record.rawValue, globalNumber: FITMessageNumber.record, fields: fields)
        writer.define(
            localType: Local.segmentRecord.rawValue, globalNumber: FITMessageNumber.record, fields: fields,
            developerFields: [FITWorkoutFields.segment.definition])
        if beats {
            writer.define(
                localType: Local.hrv.rawValue, globalNumber: FITWorkoutFields.hrvMessage,
                fields: [Self.field(0, .uint16, size: 2 * FITWorkoutFields.hrvValues)],
                developerFields: [FITWorkoutFields.beatTime, FITWorkoutFields.beatTimeMilliseconds].map(\.definition))
        }
    }

    /// `developer_data_id` naming this package, and a `field_description` per field of ours.
    private mutating func describeOurFields() {
        writer.define(localType: Local.developerDataID.rawValue, globalNumber: FITMessageNumber.developerDataID, fields: [
            Self.field(1, .byte, size: 16), Self.field(3, .uint8), Self.field(4, .uint32),
        ])
        writer.write(localType: Local.developerDataID.rawValue, values: [
            .bytes(FITWorkoutFields.applicationID), .integer(Int64(FITWorkoutFields.developerIndex)), .integer(1),
        ])
        writer.define(localType: Local.fieldDescription.rawValue, globalNumber: FITMessageNumber.fieldDescription, fields: [
            Self.field(0, .uint8), Self.field(1, .uint8), Self.field(2, .uint8), Self.field(3, .string, size: 16),
            Self.field(8, .string, size: 8),
        ])
        for field in FITWorkoutFields.all {
            writer.write(localType: Local.fieldDescription.rawValue, values: [
                .integer(Int64(FITWorkoutFields.developerIndex)), .integer(Int64(field.number)),
                .integer(Int64(field.type.definitionByte)), .string(field.name), field.units.map(FITValue.string),
            ])
        }
    }

    /// A timer event of no event of the workout's (a break between route segments of a workout
    /// without pauses, the last stop): start, or stop-all; `automatic` for auto-pause.
    mutating func timer(starts: Bool, at time: UInt32, automatic: Bool) {
        writer.write(localType: Local.event.rawValue, values: [
            .integer(Int64(time)), .integer(Int64(FITEventMessage.timer)),
            .integer(Int64(starts ? FITWorkoutFields.Event.start : FITWorkoutFields.Event.stopAll)), .integer(automatic ? 1 : 0),
            .integer(0),
        ])
    }

    /// An event of the workout, with its kind, milliseconds and name in our fields: a timer start
    /// or stop when `timer` says it starts or stops the timer, else a timer marker; a lap event
    /// (its trigger in `data`: 0 manual, 1 time, 2 distance); a user marker.
    mutating func event(_ event: WorkoutEvent, timer change: (starts: Bool, automatic: Bool)?) {
        guard let (time, milliseconds) = FITWorkoutFields.split(event.time) else { return }
        let (kind, type, data): (UInt8, UInt8, Int64) = switch event.kind {
        case .lap:
            (FITWorkoutFields.Event.lap, FITWorkoutFields.Event.marker, event.trigger.map { $0 == .manual ? 0 : $0 == .time ? 1 : 2 } ?? 0)
        case .marker:
            (FITWorkoutFields.Event.userMarker, FITWorkoutFields.Event.marker, 0)
        case .pause, .resume, .motionPaused, .motionResumed:
            (FITEventMessage.timer,
             change.map { $0.starts ? FITWorkoutFields.Event.start : FITWorkoutFields.Event.stopAll } ?? FITWorkoutFields.Event.marker,
             change?.automatic ?? (event.kind == .motionPaused || event.kind == .motionResumed) ? 1 : 0)
        }
        writer.write(localType: Local.workoutEvent.rawValue, values: [
            .integer(Int64(time)), .integer(Int64(kind)), .integer(Int64(type)), .integer(data), .integer(0),
            .integer(Int64(milliseconds)), .string(event.kind.rawValue), event.name.map(FITValue.string),
        ])
    }
}
