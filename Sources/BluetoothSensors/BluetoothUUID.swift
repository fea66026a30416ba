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
    /// Running Speed and Cadence service (a foot pod).
    public static let rscService = full(0x1814)
    /// Fitness Machine service (a treadmill, an exercise bike, a smart trainer).
    public static let fitnessMachineService = full(0x1826)
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
    /// RSC Measurement (notified).
    public static let rscMeasurement = full(0x2A53)
    /// RSC Feature (read).
    public static let rscFeature = full(0x2A54)
    /// Fitness Machine Feature (read).
    public static let fitnessMachineFeature = full(0x2ACC)
    /// Treadmill Data (notified).
    public static let treadmillData = full(0x2ACD)
    /// Indoor Bike Data (notified).
    public static let indoorBikeData = full(0x2AD2)
    /// Training Status (read, notified).
    public static let trainingStatus = full(0x2AD3)
    /// Supported Speed Range (read).
    public static let supportedSpeedRange = full(0x2AD4)
    /// Supported Inclination Range (read).
    public static let supportedInclinationRange = full(0x2AD5)
    /// Supported Resistance Level Range (read).
    public static let supportedResistanceLevelRange = full(0x2AD6)
    /// Supported Heart Rate Range (read).
    public static let supportedHeartRateRange = full(0x2AD7)
    /// Supported Power Range (read).
    public static let supportedPowerRange = full(0x2AD8)
    /// Fitness Machine Control Point (written, indicated).
    public static let fitnessMachineControlPoint = full(0x2AD9)
    /// Fitness Machine Status (notified).
    public static let fitnessMachineStatus = full(0x2ADA)

    /// The services a workout reads, in the order `workout sensors` lists them.
    public static let workoutServices = [
        heartRateService, cyclingSpeedAndCadenceService, cyclingPowerService, rscService, fitnessMachineService, batteryService,
    ]

    /// The full UUID of the 16-bit number `short`.
    public static func full(_ short: UInt16) -> String {
        let digits = String(short, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits + "-0000-1000-8000-00805f9b34fb"
    }

    /// What a person calls a service: "heart rate", "speed and cadence", "power", "running speed
    /// and cadence", "fitness machine", "battery", or its UUID.
    public static func serviceName(_ uuid: String) -> String {
        switch uuid.lowercased() {
        case heartRateService: "heart rate"
        case cyclingSpeedAndCadenceService: "speed and cadence"
        case cyclingPowerService: "power"
        case rscService: "running speed and cadence"
        case fitnessMachineService: "fitness machine"
        case batteryService: "battery"
        default: uuid
        }
    }
}
