/// The energy a fitness machine says its user has spent: all three fields come together (one
/// flag announces them), and each may be "data not available" (0xFFFF, or 0xFF for the minute's),
/// which is `nil` here.
public struct ExpendedEnergy: Sendable, Hashable {
    /// Since the session started, in kilocalories.
    public var total: Int?
    /// At the current rate, kilocalories an hour.
    public var perHour: Int?
    /// At the current rate, kilocalories a minute.
    public var perMinute: Int?

    /// `total` kilocalories, spent at `perHour` (and `perMinute`) kilocalories.
    public init(total: Int?, perHour: Int?, perMinute: Int?) {
        self.total = total
        self.perHour = perHour
        self.perMinute = perMinute
    }

    static let totalField = GATTField.uint16("total energy", unit: "kcal")
    static let perHourField = GATTField.uint16("energy per hour", unit: "kcal")
    static let perMinuteField = GATTField.uint8("energy per minute", unit: "kcal")

    init(_ reader: inout GATTBytes) throws(MalformedNotification) {
        total = Self.available(try reader.int(Self.totalField), Self.totalField)
        perHour = Self.available(try reader.int(Self.perHourField), Self.perHourField)
        perMinute = Self.available(try reader.int(Self.perMinuteField), Self.perMinuteField)
    }

    func write(to writer: inout GATTWriter) {
        // The largest raw number is "not available": a value is clamped below it.
        for (value, field) in [(total, Self.totalField), (perHour, Self.perHourField), (perMinute, Self.perMinuteField)] {
            let notAvailable = field.rawRange.upperBound
            writer.write(value.map { min(field.clamped(Double($0)), notAvailable - 1) } ?? notAvailable, field)
        }
    }

    private static func available(_ raw: Int, _ field: GATTField) -> Int? {
        raw == field.rawRange.upperBound ? nil : raw
    }
}

/// The fields Indoor Bike Data and Treadmill Data share, defined once: their names, widths and
/// resolutions as the Fitness Machine Service specification gives them.
enum FitnessMachineFields {
    /// Speed in m/s, sent in 0.01 km/h: 1 m/s is 3.6 km/h, 360 steps.
    static let speed = GATTField.uint16("instantaneous speed", scale: 360, unit: "m/s")
    static let averageSpeed = GATTField.uint16("average speed", scale: 360, unit: "m/s")
    static let totalDistance = GATTField.uint24("total distance", unit: "m")
    static let heartRate = GATTField.uint8("heart rate", unit: "bpm")
    static let metabolicEquivalent = GATTField.uint8("metabolic equivalent", scale: 10, unit: "MET")
    static let elapsedTime = GATTField.uint16("elapsed time", unit: "s")
    static let remainingTime = GATTField.uint16("remaining time", unit: "s")

    /// The flags, checked against the value's size before a field is read: an empty value says so.
    static func flags(_ reader: inout GATTBytes, _ bytes: [UInt8]) throws(MalformedNotification) -> UInt16 {
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        return try reader.uint16("flags")
    }
}
