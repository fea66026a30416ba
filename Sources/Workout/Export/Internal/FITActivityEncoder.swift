import FIT
import Foundation

/// Writes a workout as a FIT activity file, message by message, as the FIT "Activity File"
/// recipe lays it out: `file_id` (type activity) first, `device_info` of the creator, a timer
/// start, then `record`s with `event`s timer stop and start around each pause, a final timer
/// stop, a `lap` per lap, one `session` and one `activity`.
///
/// Every record has the same layout, chosen from what the workout holds: the timestamp; position,
/// altitude (both fields, as devices write them), distance and speed when it has a route; heart
/// rate, cadence (with `fractional_cadence`), power, temperature when it has such samples.
/// A value a record lacks is written as its field's invalid value.
struct FITActivityEncoder {
    /// Local message types.
    private enum Local: UInt8 {
        case fileID = 0, deviceInfo, event, record, lap, session, activity
    }

    private(set) var writer: FITWriter
    private let hasRoute: Bool
    private let types: Set<QuantityType>
    private var recordFields: [FITFieldDefinition] = []

    init(dataSize: Int?, hasRoute: Bool, types: [QuantityType]) {
        writer = FITWriter(dataSize: dataSize)
        self.hasRoute = hasRoute
        self.types = Set(types)
    }

    private static func field(_ number: UInt8, _ type: FITBaseType, size: Int? = nil) -> FITFieldDefinition {
        FITFieldDefinition(number: number, baseType: type, size: size)
    }

    /// Hands the bytes written so far to `body` and forgets them.
    mutating func drain(_ body: (UnsafeRawBufferPointer) -> Void) {
        writer.drain(body)
    }

    /// `file_id`, `device_info` and the timer's start.
    mutating func begin(start: UInt32, serial: UInt32, device: String) {
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
        writer.define(localType: Local.event.rawValue, globalNumber: FITMessageNumber.event, fields: [
            Self.field(253, .uint32), Self.field(0, .enumeration), Self.field(1, .enumeration), Self.field(3, .uint32),
            Self.field(4, .uint8),
        ])
        timer(starts: true, at: start, automatic: false)
        var fields = [Self.field(253, .uint32)]
        if hasRoute {
            fields += [Self.field(0, .sint32), Self.field(1, .sint32), Self.field(2, .uint16), Self.field(78, .uint32), Self.field(5, .uint32)]
        }
        if hasRoute || types.contains(.speed) { fields += [Self.field(6, .uint16), Self.field(73, .uint32)] }
        if types.contains(.heartRate) { fields.append(Self.field(3, .uint8)) }
        if types.contains(.cadence) { fields += [Self.field(4, .uint8), Self.field(53, .uint8)] }
        if types.contains(.power) { fields.append(Self.field(7, .uint16)) }
        if types.contains(.temperature) { fields.append(Self.field(13, .sint8)) }
        recordFields = fields
        writer.define(localType: Local.record.rawValue, globalNumber: FITMessageNumber.record, fields: fields)
    }

    /// A timer event: start, or stop-all; `automatic` for auto-pause (the timer trigger).
    mutating func timer(starts: Bool, at time: UInt32, automatic: Bool) {
        writer.write(localType: Local.event.rawValue, values: [
            .integer(Int64(time)), .integer(Int64(FITEventMessage.timer)), .integer(starts ? 0 : 4), .integer(automatic ? 1 : 0),
            .integer(0),
        ])
    }

    /// A `record`: the instant's point (position, altitude, speed), `distance` covered so far, and
    /// its samples. Returns how many of its samples its fields cannot hold (a heart rate over 254,
    /// a temperature past ±127 °C...), written as invalid.
    @discardableResult
    mutating func record(_ instant: ExportInstant, at time: UInt32, distance: Double?) -> Int {
        var lost = 0
        func sample(_ value: Double?, _ type: FITBaseType, scale: Double = 1) -> FITValue? {
            guard let raw = Self.scaled(value, scale: scale) else { return nil }
            guard case let .integer(number) = raw, Self.holds(number, type) else {
                lost += 1
                return nil
            }
            return raw
        }
        var values: [FITValue?] = []
        values.reserveCapacity(recordFields.count)
        let location = instant.point?.location
        for field in recordFields {
            switch field.number {
            case 253: values.append(.integer(Int64(time)))
            case 0: values.append(location.map { .integer(Int64(FITSemicircles.semicircles($0.latitude))) })
            case 1: values.append(location.map { .integer(Int64(FITSemicircles.semicircles($0.longitude))) })
            case 2: values.append(Self.scaled(location?.altitude, scale: 5, offset: 500))
            case 78: values.append(Self.scaled(location?.altitude, scale: 5, offset: 500))
            case 5: values.append(location == nil ? nil : Self.scaled(distance, scale: 100))
            case 6: values.append(Self.scaled(location?.speed ?? instant.values.speed, scale: 1000))
            case 73: values.append(location?.speed == nil ? sample(instant.values.speed, .uint32, scale: 1000) : Self.scaled(location?.speed, scale: 1000))
            case 3: values.append(sample(instant.values.heartRate, .uint8))
            case 4: values.append(sample(instant.values.cadence.map { Self.cadence($0).whole }, .uint8))
            case 53: values.append(instant.values.cadence.map { cadence in .integer(Int64(Self.cadence(cadence).fraction)) })
            case 7: values.append(sample(instant.values.power, .uint16))
            case 13: values.append(sample(instant.values.temperature, .sint8))
            default: values.append(nil)
            }
        }
        writer.write(localType: Local.record.rawValue, values: values)
        return lost
    }

    /// Whether `number` is a valid value of `type` (in range, and not its invalid value).
    private static func holds(_ number: Int64, _ type: FITBaseType) -> Bool {
        switch type {
        case .uint8: (0..<0xFF).contains(number)
        case .uint16: (0..<0xFFFF).contains(number)
        case .uint32: (0..<0xFFFF_FFFF).contains(number)
        case .sint8: (-127...126).contains(number)
        default: true
        }
    }

    /// Cadence as whole rpm and 1/128ths.
    private static func cadence(_ value: Double) -> (whole: Double, fraction: Double) {
        var whole = value.rounded(.down)
        var fraction = ((value - whole) * 128).rounded()
        if fraction >= 128 {
            whole += 1
            fraction = 0
        }
        return (whole, fraction)
    }

    /// `(value + offset) × scale`, rounded; `nil` stays `nil` (the writer writes a value out of its
    /// field's range as invalid).
    private static func scaled(_ value: Double?, scale: Double = 1, offset: Double = 0) -> FITValue? {
        guard let value, value.isFinite else { return nil }
        let raw = ((value + offset) * scale).rounded()
        guard abs(raw) < 9e18 else { return nil }
        return .integer(Int64(raw))
    }

    /// The figures of a lap or the session: totals and sample figures.
    struct Summary {
        var start: UInt32
        var end: UInt32
        var elapsed: Double
        var timer: Double
        var distance: Double?
        var samples: [QuantityType: SampleFigures]
        var sport: UInt8
    }

    /// A `lap`, numbered from 0, with what ended it (0 manual, 1 time, 2 distance, 7 the session's end).
    mutating func lap(_ lap: Summary, index: Int, trigger: UInt8) {
        if index == 0 {
            writer.define(localType: Local.lap.rawValue, globalNumber: FITMessageNumber.lap, fields: [
                Self.field(253, .uint32), Self.field(2, .uint32), Self.field(7, .uint32), Self.field(8, .uint32), Self.field(9, .uint32),
                Self.field(254, .uint16), Self.field(0, .enumeration), Self.field(1, .enumeration), Self.field(24, .enumeration),
                Self.field(25, .enumeration), Self.field(15, .uint8), Self.field(16, .uint8), Self.field(17, .uint8),
                Self.field(18, .uint8), Self.field(19, .uint16), Self.field(20, .uint16),
            ])
        }
        writer.write(localType: Local.lap.rawValue, values: [
            .integer(Int64(lap.end)), .integer(Int64(lap.start)), Self.scaled(lap.elapsed, scale: 1000), Self.scaled(lap.timer, scale: 1000),
            Self.scaled(lap.distance, scale: 100), .integer(Int64(index)), .integer(9), .integer(1), .integer(Int64(trigger)),
            .integer(Int64(lap.sport)),
        ] + Self.figures(lap.samples))
    }

    private static func figures(_ samples: [QuantityType: SampleFigures]) -> [FITValue?] {
        [QuantityType.heartRate, .cadence, .power].flatMap { type -> [FITValue?] in
            [scaled(samples[type]?.average), scaled(samples[type]?.maximum)]
        }
    }

    /// The `session` and the `activity`, and the timer's last stop before them (unless a pause
    /// stopped it already). Throws ``FITWriteError`` when the records do not have the size
    /// measured (the workout changed between the passes).
    mutating func end(
        _ session: Summary, laps: Int, ascent: Double?, descent: Double?, calories: Double?, localOffset: Int?,
        startPosition: (latitude: Double, longitude: Double)?, timerRunning: Bool
    ) throws(FITWriteError) {
        if timerRunning { timer(starts: false, at: session.end, automatic: false) }
        writer.define(localType: Local.session.rawValue, globalNumber: FITMessageNumber.session, fields: [
            Self.field(253, .uint32), Self.field(2, .uint32), Self.field(7, .uint32), Self.field(8, .uint32), Self.field(9, .uint32),
            Self.field(5, .enumeration), Self.field(6, .enumeration), Self.field(0, .enumeration), Self.field(1, .enumeration),
            Self.field(25, .uint16), Self.field(26, .uint16), Self.field(254, .uint16), Self.field(28, .enumeration),
            Self.field(11, .uint16), Self.field(22, .uint16), Self.field(23, .uint16), Self.field(3, .sint32), Self.field(4, .sint32),
            Self.field(124, .uint32), Self.field(16, .uint8), Self.field(17, .uint8), Self.field(18, .uint8), Self.field(19, .uint8),
            Self.field(20, .uint16), Self.field(21, .uint16),
        ])
        let averageSpeed = session.distance.flatMap { distance in session.timer > 0 ? distance / session.timer : nil }
        writer.write(localType: Local.session.rawValue, values: [
            .integer(Int64(session.end)), .integer(Int64(session.start)), Self.scaled(session.elapsed, scale: 1000),
            Self.scaled(session.timer, scale: 1000), Self.scaled(session.distance, scale: 100), .integer(Int64(session.sport)),
            .integer(0), .integer(8), .integer(1), .integer(0), .integer(Int64(laps)), .integer(0), .integer(0),
            Self.scaled(calories), Self.scaled(ascent), Self.scaled(descent),
            startPosition.map { .integer(Int64(FITSemicircles.semicircles($0.latitude))) },
            startPosition.map { .integer(Int64(FITSemicircles.semicircles($0.longitude))) },
            Self.scaled(averageSpeed, scale: 1000),
        ] + Self.figures(session.samples))
        writer.define(localType: Local.activity.rawValue, globalNumber: FITMessageNumber.activity, fields: [
            Self.field(253, .uint32), Self.field(0, .uint32), Self.field(1, .uint16), Self.field(2, .enumeration),
            Self.field(3, .enumeration), Self.field(4, .enumeration), Self.field(5, .uint32),
        ])
        writer.write(localType: Local.activity.rawValue, values: [
            .integer(Int64(session.end)), Self.scaled(session.timer, scale: 1000), .integer(1), .integer(0), .integer(26), .integer(1),
            localOffset.map { .integer(Int64(session.end) + Int64($0)) },
        ])
        try writer.finish()
    }
}
