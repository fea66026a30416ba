extension BluetoothSensorStatus {
    /// What a fitness machine (a smart trainer, an exercise bike, a treadmill: the Fitness Machine
    /// service) says of itself, read once on connect; its last status and training status; and
    /// where the control of it stands (``FitnessMachineControl``), for a status line.
    public struct FitnessMachine: Sendable, Hashable {
        /// What sort of machine it is, by the data it sends.
        public enum Kind: Sendable, Hashable, CustomStringConvertible {
            /// Indoor Bike Data: a smart trainer or an exercise bike.
            case indoorBike
            /// Treadmill Data.
            case treadmill
            /// Another machine (a rower, a cross trainer): no samples are read from it.
            case other

            public var description: String {
                switch self {
                case .indoorBike: "indoor bike"
                case .treadmill: "treadmill"
                case .other: "fitness machine"
                }
            }
        }

        /// Where the control of the machine stands.
        public enum Control: Sendable, Hashable, CustomStringConvertible {
            /// Not asked for.
            case notRequested
            /// Given: targets may be set.
            case granted
            /// The machine refused it (another app or device holds it).
            case refused
            /// The machine took it back (it sent Control Permission Lost, or was reset), or the
            /// connection dropped: a dropped connection's control is asked for again when it comes back.
            case lost

            public var description: String {
                switch self {
                case .notRequested: "not requested"
                case .granted: "granted"
                case .refused: "refused"
                case .lost: "lost"
                }
            }
        }

        /// What sort of machine it is.
        public var kind: Kind
        /// What it measures and what it can be set to (Fitness Machine Feature), when it could be read.
        public var feature: FitnessMachineFeature?
        /// The targets it takes (its Supported ... Range characteristics), by kind: a target
        /// outside one is refused before it is sent.
        public var ranges: [SupportedRange.Kind: SupportedRange] = [:]
        /// Where its user is in their training (Training Status), read on connect and as it changes.
        public var trainingStatus: TrainingStatus?
        /// The last Fitness Machine Status it sent (a target changed, stopped by the user, control lost).
        public var lastStatus: FitnessMachineStatus?
        /// Where the control of it stands.
        public var control: Control = .notRequested
        /// The targets it was last set to (by us, or as its status says).
        public var targets = FitnessMachineTargets()
        /// How many times the targets were set again on a connection that came back.
        public var targetsRestored = 0
        /// Why setting them again failed, the last time it did (`nil` once it succeeds).
        public var restoreError: FitnessMachineControlError?
        /// Answers that came when no request of theirs was waiting (one that came after its
        /// request's timeout, or answered another client of the same BlueZ): dropped.
        public var lateResponses = 0
        /// A treadmill's last inclination, in percent.
        public var inclination: Double?
        /// A trainer's last resistance level.
        public var resistanceLevel: Double?

        /// A machine of `kind`, nothing read yet.
        public init(kind: Kind) {
            self.kind = kind
        }
    }
}

/// The targets a fitness machine was last set to: a trainer's one mode (a power, a resistance
/// level or a simulated ride, each replacing the others), and a treadmill's speed and
/// inclination, each on its own.
public struct FitnessMachineTargets: Sendable, Hashable {
    /// What a trainer or an exercise bike holds to.
    public enum Mode: Sendable, Hashable {
        /// A power, in watts (ERG): it changes its resistance to hold it at any cadence.
        case power(Int)
        /// A resistance level, in the machine's steps.
        case resistanceLevel(Double)
        /// A ride outdoors: wind, grade and resistance coefficients.
        case simulation(IndoorBikeSimulation)
    }

    /// A trainer's mode, once set.
    public var mode: Mode?
    /// A target speed, in m/s.
    public var speed: Double?
    /// A target inclination, in percent.
    public var inclination: Double?
    /// Whether the session was last started or resumed (`true`), or stopped or paused (`false`).
    public var isStarted: Bool?

    /// No target set.
    public init(mode: Mode? = nil, speed: Double? = nil, inclination: Double? = nil, isStarted: Bool? = nil) {
        self.mode = mode
        self.speed = speed
        self.inclination = inclination
        self.isStarted = isStarted
    }

    /// The requests that set them again, in order: start, then speed and inclination, then the mode.
    var requests: [FitnessMachineControlPoint.Request] {
        var requests: [FitnessMachineControlPoint.Request] = []
        if isStarted == true { requests.append(.startOrResume) }
        if let speed { requests.append(.setTargetSpeed(speed)) }
        if let inclination { requests.append(.setTargetInclination(inclination)) }
        switch mode {
        case let .power(watts): requests.append(.setTargetPower(watts))
        case let .resistanceLevel(level): requests.append(.setTargetResistanceLevel(level))
        case let .simulation(simulation): requests.append(.setIndoorBikeSimulation(simulation))
        case nil: break
        }
        return requests
    }

    /// The targets once `request` succeeded.
    mutating func take(_ request: FitnessMachineControlPoint.Request) {
        switch request {
        case .reset: self = FitnessMachineTargets()
        case let .setTargetSpeed(speed): self.speed = speed
        case let .setTargetInclination(inclination): self.inclination = inclination
        case let .setTargetResistanceLevel(level): mode = .resistanceLevel(level)
        case let .setTargetPower(watts): mode = .power(watts)
        case let .setIndoorBikeSimulation(simulation): mode = .simulation(simulation)
        case .startOrResume: isStarted = true
        case .stopOrPause: isStarted = false
        default: break
        }
    }

    /// The targets once the machine says `status` (its own change, or another client's).
    mutating func take(_ status: FitnessMachineStatus) {
        switch status {
        case .reset: self = FitnessMachineTargets()
        case let .targetSpeedChanged(speed): self.speed = speed
        case let .targetInclinationChanged(inclination): self.inclination = inclination
        case let .targetResistanceLevelChanged(level): mode = .resistanceLevel(level)
        case let .targetPowerChanged(watts): mode = .power(watts)
        case let .indoorBikeSimulationChanged(simulation): mode = .simulation(simulation)
        case .stoppedOrPausedByUser, .stoppedBySafetyKey: isStarted = false
        case .startedOrResumedByUser: isStarted = true
        default: break
        }
    }
}
