/// What a fitness machine can be set to: its least and greatest target and the step between two
/// targets, read from one of the five Supported Range characteristics (`0x2AD4` to `0x2AD8`), in
/// the unit the rest of this module gives that quantity (a speed in m/s, not the km/h it is sent in).
///
/// ```swift
/// let speeds = try SupportedRange(.speed, bytes: [0x64, 0x00, 0xD0, 0x07, 0x0A, 0x00])  // 1 to 20 km/h by 0.1
/// try speeds.check(10 / 3.6)       // 10 km/h: inside, and on a step
/// speeds.contains(25 / 3.6)        // false
/// ```
public struct SupportedRange: Sendable, Hashable {
    /// Which target the range is of.
    public var kind: Kind
    /// The least target, in the kind's ``Kind/unit``.
    public var minimum: Double
    /// The greatest target.
    public var maximum: Double
    /// The step between two targets, counted from ``minimum``; 0 is any value.
    public var increment: Double

    /// The five targets a machine gives a range for, each with its characteristic's layout.
    public enum Kind: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Supported Speed Range (`0x2AD4`): three uint16 in 0.01 km/h, here in m/s.
        case speed
        /// Supported Inclination Range (`0x2AD5`): sint16 minimum and maximum, uint16 step, in 0.1 %.
        case inclination
        /// Supported Resistance Level Range (`0x2AD6`): sint16 minimum and maximum, uint16 step,
        /// in 0.1 of the machine's steps (FTMS v1.0; the later GATT Specification Supplement gives
        /// three uint8, which a v1.0 machine does not send).
        case resistanceLevel
        /// Supported Heart Rate Range (`0x2AD7`): three uint8, beats per minute.
        case heartRate
        /// Supported Power Range (`0x2AD8`): sint16 minimum and maximum, uint16 step, in watts.
        case power

        /// The characteristic's name, as errors say it.
        public var description: String {
            switch self {
            case .speed: "Supported Speed Range"
            case .inclination: "Supported Inclination Range"
            case .resistanceLevel: "Supported Resistance Level Range"
            case .heartRate: "Supported Heart Rate Range"
            case .power: "Supported Power Range"
            }
        }

        /// The quantity, in words: "speed", "resistance level".
        public var quantity: String {
            switch self {
            case .speed: "speed"
            case .inclination: "inclination"
            case .resistanceLevel: "resistance level"
            case .heartRate: "heart rate"
            case .power: "power"
            }
        }

        /// The unit of the range's values: `m/s`, `%`, empty (resistance), `bpm`, `W`.
        public var unit: String {
            switch self {
            case .speed: "m/s"
            case .inclination: "%"
            case .resistanceLevel: ""
            case .heartRate: "bpm"
            case .power: "W"
            }
        }

        /// The layout of the minimum, the maximum and the increment.
        var fields: (bound: (String) -> GATTField, increment: GATTField) {
            switch self {
            case .speed: ({ .uint16($0, scale: 360, unit: "m/s") }, .uint16("minimum increment", scale: 360, unit: "m/s"))
            case .inclination: ({ .sint16($0, scale: 10, unit: "%") }, .uint16("minimum increment", scale: 10, unit: "%"))
            case .resistanceLevel: ({ .sint16($0, scale: 10) }, .uint16("minimum increment", scale: 10))
            case .heartRate: ({ .uint8($0, unit: "bpm") }, .uint8("minimum increment", unit: "bpm"))
            case .power: ({ .sint16($0, unit: "W") }, .uint16("minimum increment", unit: "W"))
            }
        }
    }

    /// Targets of `kind` from `minimum` to `maximum` by `increment`, in the kind's unit.
    public init(_ kind: Kind, minimum: Double, maximum: Double, increment: Double) {
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.increment = increment
    }

    /// Decodes the characteristic of `kind`. Throws ``MalformedNotification`` for a value of
    /// another size, or one whose minimum is above its maximum.
    public init(_ kind: Kind, bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: kind.description)
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        let (bound, incrementField) = kind.fields
        let minimumField = bound("minimum"), maximumField = bound("maximum")
        let lowest = try reader.raw(minimumField)
        let highest = try reader.raw(maximumField)
        let step = try reader.raw(incrementField)
        try reader.end()
        guard lowest <= highest else { throw reader.malformed(.outOfRange(field: "minimum", value: lowest), at: 0) }
        self.init(kind, minimum: Double(lowest) / minimumField.scale, maximum: Double(highest) / maximumField.scale,
                  increment: Double(step) / incrementField.scale)
    }

    /// The characteristic's bytes, each value clamped to what its field carries.
    public var bytes: [UInt8] {
        let (bound, incrementField) = kind.fields
        var writer = GATTWriter()
        writer.clamped(minimum, bound("minimum"))
        writer.clamped(maximum, bound("maximum"))
        writer.clamped(increment, incrementField)
        return writer.bytes
    }

    /// Whether `value` lies from ``minimum`` to ``maximum`` (within a millionth of a step, for
    /// values converted from another unit).
    public func contains(_ value: Double) -> Bool {
        let slack = Swift.max(increment, 1) * 1e-6
        return value >= minimum - slack && value <= maximum + slack
    }

    /// Whether `value` is a whole number of increments above ``minimum``.
    public func isOnIncrement(_ value: Double) -> Bool {
        guard increment > 0 else { return value.isFinite }
        let steps = (value - minimum) / increment
        return abs(steps - steps.rounded()) < 1e-6
    }

    /// The allowed target nearest `value`: inside the range, on an increment.
    public func nearest(_ value: Double) -> Double {
        let inside = Swift.min(Swift.max(value.isNaN ? minimum : value, minimum), maximum)
        guard increment > 0 else { return inside }
        let steps = ((inside - minimum) / increment).rounded()
        return Swift.min(minimum + steps * increment, maximum)
    }

    /// Returns when the machine takes `target`; throws ``TargetOutsideRange`` saying why not
    /// otherwise: below the minimum, above the maximum, or between two increments.
    public func check(_ target: Double) throws(TargetOutsideRange) {
        guard contains(target) else {
            throw TargetOutsideRange(range: self, target: target, reason: target < minimum ? .belowMinimum : .aboveMaximum)
        }
        guard isOnIncrement(target) else { throw TargetOutsideRange(range: self, target: target, reason: .betweenIncrements) }
    }
}

/// A target a fitness machine does not take, by its ``SupportedRange``.
public struct TargetOutsideRange: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine's range.
    public var range: SupportedRange
    /// The target asked for, in the range's unit.
    public var target: Double
    /// What is wrong with it.
    public var reason: Reason

    /// Why the machine does not take a target.
    public enum Reason: Sendable, Hashable {
        /// It is below the range's minimum.
        case belowMinimum
        /// It is above the range's maximum.
        case aboveMaximum
        /// It falls between two of the range's increments.
        case betweenIncrements
    }

    public var description: String {
        let unit = range.kind.unit.isEmpty ? "" : " " + range.kind.unit
        let what = range.kind.quantity
        let span = "\(range.minimum)\(unit) to \(range.maximum)\(unit)"
        switch reason {
        case .belowMinimum, .aboveMaximum:
            return "A target \(what) of \(target)\(unit) is outside the machine's range of \(span); choose one inside it."
        case .betweenIncrements:
            return "A target \(what) of \(target)\(unit) falls between the machine's steps of \(range.increment)\(unit) "
                + "from \(range.minimum)\(unit); the nearest it takes is \(range.nearest(target))\(unit)."
        }
    }
}
