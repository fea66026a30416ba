/// Where a fitness machine's user is in their training (Training Status, `0x2AD3`): flags, the
/// status, and the machine's words for it when the flags announce them (UTF-8, to the end of the
/// value), as the Fitness Machine Service specification (v1.0) lays them out.
///
/// ```swift
/// let training = try TrainingStatus(bytes: [0x01, 0x02, 0x57, 0x61, 0x72, 0x6D])  // .warmingUp, "Warm"
/// ```
public struct TrainingStatus: Sendable, Hashable {
    /// The status.
    public var status: Status
    /// What the machine says of it (flags bit 0), as sent: bytes that are not UTF-8 read as U+FFFD.
    /// An empty string is not sent (the flag says a string of one byte at least follows).
    public var string: String?
    /// Whether the string goes on beyond this value (flags bit 1): a client reads the
    /// characteristic for the rest.
    public var stringIsExtended: Bool

    /// The training status `status`, with the machine's `string` for it.
    public init(status: Status, string: String? = nil, stringIsExtended: Bool = false) {
        self.status = status
        self.string = string
        self.stringIsExtended = stringIsExtended
    }

    /// Decodes `bytes`. Throws ``MalformedNotification`` when they end before the status, or
    /// before a string the flags announce (one byte at least), or go on past a status without one.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "Training Status")
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        let flags = try reader.uint8("flags")
        status = Status(rawValue: try reader.uint8("training status"))
        stringIsExtended = flags & 0x02 != 0
        if flags & 0x01 != 0 {
            guard reader.remaining > 0 else { throw reader.malformed(.truncated(field: "training status string", needed: 1)) }
            string = String(decoding: reader.rest(), as: UTF8.self)
        }
        try reader.end()
    }

    /// The characteristic's bytes.
    public var bytes: [UInt8] {
        let text = Array((string ?? "").utf8)
        let flags: UInt8 = (text.isEmpty ? 0 : 0x01) | (stringIsExtended ? 0x02 : 0)
        return [flags, status.rawValue] + text
    }

    /// A training status, as the specification numbers them; a number it reserves is kept.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// Other (0x00).
        case other
        /// Idle (0x01).
        case idle
        /// Warming up (0x02).
        case warmingUp
        /// A low intensity interval (0x03).
        case lowIntensityInterval
        /// A high intensity interval (0x04).
        case highIntensityInterval
        /// A recovery interval (0x05).
        case recoveryInterval
        /// Isometric (0x06).
        case isometric
        /// Heart rate control (0x07).
        case heartRateControl
        /// A fitness test (0x08).
        case fitnessTest
        /// The speed is below the region the machine can control: speed up (0x09).
        case speedBelowControlRegion
        /// The speed is above it: slow down (0x0A).
        case speedAboveControlRegion
        /// Cooling down (0x0B).
        case coolDown
        /// Watt control (0x0C).
        case wattControl
        /// Manual mode: a quick start, with no program (0x0D).
        case manualMode
        /// Before the workout (0x0E).
        case preWorkout
        /// After the workout (0x0F).
        case postWorkout
        /// A status the specification reserves, as sent.
        case unknown(UInt8)

        private static let known: [Status] = [
            .other, .idle, .warmingUp, .lowIntensityInterval, .highIntensityInterval, .recoveryInterval, .isometric,
            .heartRateControl, .fitnessTest, .speedBelowControlRegion, .speedAboveControlRegion, .coolDown, .wattControl,
            .manualMode, .preWorkout, .postWorkout,
        ]

        /// The status `rawValue`: 0x00 (other) to 0x0F (post-workout), or ``unknown(_:)``.
        public init(rawValue: UInt8) {
            self = Int(rawValue) < Self.known.count ? Self.known[Int(rawValue)] : .unknown(rawValue)
        }

        /// The status as sent.
        public var rawValue: UInt8 {
            if case let .unknown(value) = self { return value }
            return UInt8(Self.known.firstIndex(of: self) ?? 0)
        }

        public var description: String {
            switch self {
            case .other: "other"
            case .idle: "idle"
            case .warmingUp: "warming up"
            case .lowIntensityInterval: "low intensity interval"
            case .highIntensityInterval: "high intensity interval"
            case .recoveryInterval: "recovery interval"
            case .isometric: "isometric"
            case .heartRateControl: "heart rate control"
            case .fitnessTest: "fitness test"
            case .speedBelowControlRegion: "speed below the control region"
            case .speedAboveControlRegion: "speed above the control region"
            case .coolDown: "cool down"
            case .wattControl: "watt control"
            case .manualMode: "manual mode"
            case .preWorkout: "pre-workout"
            case .postWorkout: "post-workout"
            case let .unknown(value): "training status \(value)"
            }
        }
    }
}
