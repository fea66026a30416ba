import BluetoothSensors
import Foundation

/// The machine behind a fake device's Fitness Machine service (``FakeBluetoothDevice/fitnessMachine``):
/// a smart trainer that rides ``TrainerPhysics``, or a treadmill whose belt and deck follow their
/// targets, answering its control point as a real one does. A fake, for tests: the rider is who
/// the test says (``rider``), and it holds no real brake.
///
/// A **trainer** shows the rider's power in a simulation (`IndoorBikeSimulation`, or flat road
/// with no target), which drives the speed up and down the grade. In ERG (a target power) its
/// brake holds the target at any cadence: the brake's torque follows the target over the cadence
/// with a time constant of ``ergSettling``, so a change of the cadence or the target is a step
/// that settles within a few watts in a few seconds, as a real trainer's, not an exact copy. At a
/// resistance level the brake's torque is the level's (``brakeTorque(level:)``). Outside a
/// simulation the speed is that of the power shown on a flat road.
///
/// A **treadmill**'s belt speeds up and slows down towards its target at ``beltAcceleration``,
/// and its deck tilts towards its target at ``inclineRate``.
///
/// Its control point (``handle(_:from:)``): a request it cannot read, or whose op code its
/// features do not offer, is "not supported" (or "invalid parameter", for a parameter it cannot
/// read); any other before the client was given control, or from a client other than the one
/// that holds it, is "control not permitted"; a target outside its ranges is "invalid parameter".
public struct FakeFitnessMachine: Sendable {
    /// What sort of machine it is.
    public enum Kind: Sendable, Hashable {
        /// A smart trainer: Indoor Bike Data, power, resistance and simulation.
        case indoorBike
        /// A treadmill: Treadmill Data, speed and inclination.
        case treadmill
    }

    /// Who rides a trainer: the power and the cadence they put in (a test changes them as it goes).
    public struct Rider: Sendable, Hashable {
        /// Watts.
        public var power: Double
        /// Crank revolutions a minute.
        public var cadence: Double

        /// A rider putting in `power` watts at `cadence` rpm.
        public init(power: Double, cadence: Double) {
            self.power = power
            self.cadence = cadence
        }
    }

    /// What a trainer holds to.
    public enum Mode: Sendable, Hashable {
        /// The rider's power on `IndoorBikeSimulation(grade: 0)`: no target set.
        case free
        /// A target power (ERG).
        case power(Int)
        /// A resistance level.
        case resistanceLevel(Double)
        /// A simulated road.
        case simulation(IndoorBikeSimulation)
    }

    /// What sort of machine it is.
    public let kind: Kind
    /// What it says it measures and takes (its Fitness Machine Feature).
    public var feature: FitnessMachineFeature
    /// The targets it takes (its Supported ... Range characteristics).
    public var ranges: [SupportedRange]
    /// A trainer's road and bike.
    public var physics: TrainerPhysics
    /// Who rides a trainer.
    public var rider: Rider
    /// Whether it refuses control to everyone (as one held by an app it will not let go of).
    public var refusesControl = false
    /// The client that holds control: a D-Bus unique name, or another central's name (see
    /// ``FakeBluetoothDevice/giveControl(toAnotherCentral:)``).
    public internal(set) var controller: String?
    /// A trainer's mode.
    public internal(set) var mode = Mode.free
    /// Whether its session is started (or resumed).
    public internal(set) var isStarted = false
    /// The power it shows, in watts.
    public internal(set) var power = 0.0
    /// The metres it has counted: its total distance sends this modulo 2²⁴ (the field's wrap).
    public var totalDistance: Double
    /// A treadmill's target speed, in m/s, and its belt's speed is ``speed``.
    public internal(set) var targetSpeed = 0.0
    /// A treadmill's target inclination, in percent.
    public internal(set) var targetInclination = 0.0
    /// A treadmill's inclination, in percent.
    public internal(set) var inclination = 0.0
    /// A treadmill's belt speed (``TrainerPhysics/speed`` for a trainer), in m/s.
    public internal(set) var beltSpeed = 0.0
    /// Every request read on its control point, in order, with the client that wrote it.
    public internal(set) var requests: [(request: FitnessMachineControlPoint.Request, client: String)] = []
    /// The brake's torque over the cadence in ERG, watts per rpm.
    var ergTorque: Double?

    /// The time constant of a trainer's brake in ERG.
    public static let ergSettling = 1.5
    /// How fast a treadmill's belt changes speed, in m/s².
    public static let beltAcceleration = 0.5
    /// How fast a treadmill's deck tilts, in percent a second.
    public static let inclineRate = 0.5

    /// A machine of `kind`, saying `feature` and `ranges` (by default, a trainer's: 0 to 1,500 W by
    /// 1 W, resistance 0 to 20 by 1, and simulation; a treadmill's: 1 to 20 km/h by 0.01 km/h,
    /// -3 to 15 % by 0.5 %), ridden by `rider`, its total distance starting at `totalDistance` m.
    public init(
        _ kind: Kind, feature: FitnessMachineFeature? = nil, ranges: [SupportedRange]? = nil, physics: TrainerPhysics = TrainerPhysics(),
        rider: Rider = Rider(power: 150, cadence: 85), totalDistance: Double = 0
    ) {
        self.kind = kind
        self.physics = physics
        self.rider = rider
        self.totalDistance = totalDistance
        switch kind {
        case .indoorBike:
            self.feature = feature ?? FitnessMachineFeature(
                machine: [.cadence, .totalDistance, .resistanceLevel, .powerMeasurement],
                targets: [.power, .resistance, .indoorBikeSimulation])
            self.ranges = ranges ?? [
                SupportedRange(.power, minimum: 0, maximum: 1_500, increment: 1), SupportedRange(.resistanceLevel, minimum: 0, maximum: 20, increment: 1),
            ]
        case .treadmill:
            self.feature = feature ?? FitnessMachineFeature(machine: [.totalDistance, .inclination], targets: [.speed, .inclination])
            self.ranges = ranges ?? [
                SupportedRange(.speed, minimum: 1 / 3.6, maximum: 20 / 3.6, increment: 0.01 / 3.6),
                SupportedRange(.inclination, minimum: -3, maximum: 15, increment: 0.5),
            ]
        }
    }

    /// The range it gives for `kind`, if it gives one.
    public func range(_ kind: SupportedRange.Kind) -> SupportedRange? {
        ranges.first { $0.kind == kind }
    }

    /// A trainer's speed, or a treadmill's belt's, in m/s.
    public var speed: Double {
        kind == .indoorBike ? physics.speed : beltSpeed
    }

    /// A trainer's cadence (the rider's), in rpm.
    public var cadence: Double {
        rider.cadence
    }

    /// The brake's torque over the cadence at a resistance `level`, in watts per rpm: 0.5, and
    /// 0.15 more a level (level 10 at 90 rpm: 180 W).
    public static func brakeTorque(level: Double) -> Double {
        0.5 + 0.15 * max(0, level)
    }
}
