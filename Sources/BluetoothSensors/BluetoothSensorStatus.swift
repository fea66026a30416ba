import LocationCore
import WorkoutCore

/// What a ``BluetoothSensor`` knows of its device and its connection.
public struct BluetoothSensorStatus: Sendable, Hashable {
    /// Where the connection stands.
    public enum Connection: Sendable, Hashable, CustomStringConvertible {
        /// Not started, or stopped.
        case stopped
        /// Looking for the device and connecting; `attempt` counts from 1 since the last connection.
        case connecting(attempt: Int)
        /// Connected, notifications on.
        case connected
        /// Waiting to connect again after `after` (`attempt` so far).
        case waitingToReconnect(after: Duration, attempt: Int)

        public var description: String {
            switch self {
            case .stopped: "stopped"
            case let .connecting(attempt): "connecting (attempt \(attempt))"
            case .connected: "connected"
            case let .waitingToReconnect(delay, attempt): "reconnecting in \(LocationError.format(delay)) (attempt \(attempt))"
            }
        }
    }

    /// The device's address.
    public var address: String
    /// Where the connection stands.
    public var connection: Connection = .stopped
    /// The name the device gives, once known.
    public var name: String?
    /// The workout services it has ("heart rate", "speed and cadence", "power", "running speed and
    /// cadence", "fitness machine"), once connected.
    public var services: [String] = []
    /// Its battery's charge in percent, when it has a battery service.
    public var batteryPercent: Int?
    /// Where a heart-rate strap says it is worn.
    public var bodySensorLocation: BodySensorLocation?
    /// The measurements read (notifications that decoded).
    public var notifications = 0
    /// Notifications dropped because they were not what their specification says, by reason
    /// (`MalformedNotification.reasonKey`).
    public var dropped: [String: Int] = [:]
    /// How many times the connection was lost after it was up.
    public var gaps = 0
    /// How long the sensor was gone, in all (gaps that ended).
    public var gapTime = Duration.zero
    /// The last thing that went wrong.
    public var lastError: BluetoothError?
    /// The last value of each type it gave.
    public var latest: [QuantityType: Double] = [:]
    /// A foot pod's last stride length, in metres (no sample type carries it).
    public var strideLength: Double?
    /// Whether a foot pod's runner runs (`true`) or walks, when it tells them apart.
    public var isRunning: Bool?
    /// What a foot pod measures (its RSC Feature, read once on connect).
    public var rscFeature: RSCFeature?
    /// A fitness machine's features, ranges, status and control (its Fitness Machine service),
    /// once connected; `nil` for any other device.
    public var fitnessMachine: FitnessMachine?

    /// The status of a sensor at `address` that has not started: for a test of code that shows one.
    public init(address: String) {
        self.address = address
    }
}
