/// The Bluetooth SIG's 16-bit numbers for the services and characteristics a workout reads, as
/// BlueZ writes them: in full, lower case, on the Bluetooth base UUID
/// (`0000180d-0000-1000-8000-00805f9b34fb`).
public enum BluetoothUUID {
    /// Heart Rate service.
    public static let heartRateService = full(0x180D)
    /// Cycling Speed and Cadence service.
    public static let cyclingSpeedAndCadenceService = full(0x1816)
    /// Cycling Power service.
    public static let cyclingPowerService = full(0x1818)
    /// Battery service.
    public static let batteryService = full(0x180F)
    /// Heart Rate Measurement (notified).
    public static let heartRateMeasurement = full(0x2A37)
    /// Body Sensor Location (read).
    public static let bodySensorLocation = full(0x2A38)
    /// CSC Measurement (notified).
    public static let cscMeasurement = full(0x2A5B)
    /// Cycling Power Measurement (notified).
    public static let cyclingPowerMeasurement = full(0x2A63)
    /// Battery Level (read, sometimes notified).
    public static let batteryLevel = full(0x2A19)

    /// The services a workout reads, in the order `workout sensors` lists them.
    public static let workoutServices = [heartRateService, cyclingSpeedAndCadenceService, cyclingPowerService, batteryService]

    /// The full UUID of the 16-bit number `short`.
    public static func full(_ short: UInt16) -> String {
        let digits = String(short, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits + "-0000-1000-8000-00805f9b34fb"
    }

    /// What a person calls a service: "heart rate", "speed and cadence", "power", "battery", or
    /// its UUID.
    public static func serviceName(_ uuid: String) -> String {
        switch uuid.lowercased() {
        case heartRateService: "heart rate"
        case cyclingSpeedAndCadenceService: "speed and cadence"
        case cyclingPowerService: "power"
        case batteryService: "battery"
        default: uuid
        }
    }
}
