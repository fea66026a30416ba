import BluetoothSensors
import Foundation

/// A bike on a road, as a fake smart trainer rides it (``FakeFitnessMachine``): the speed the
/// rider's power makes against gravity on the grade, the tyres' rolling resistance and the air
/// (with the wind), with the inertia of the rider, the bike and its wheels, so that the speed
/// changes as a real one does and never jumps.
///
/// The forces, with `m` the rider's and the bike's mass, `g` 9.81 m/s², `θ` the slope's angle,
/// `v` the speed and `w` the headwind (an `IndoorBikeSimulation`'s grade, coefficients and wind):
/// - gravity `m·g·sin θ`, and rolling `Crr·m·g·cos θ`;
/// - the air `Cw·(v + w)·|v + w|` (`Cw` the wind resistance coefficient in kg/m: half the air's
///   density times the drag area, 0.51 kg/m for a rider on the hoods);
/// - the drive `P / v` (below 1 m/s, `P / 1 m/s`: a rider starting from rest pushes, but not
///   with an infinite force).
///
/// ```swift
/// var bike = TrainerPhysics(mass: 85)
/// for _ in 0..<120 { bike.advance(by: 1, power: 200, riding: IndoorBikeSimulation(grade: 0)) }
/// // bike.speed is near bike.steadySpeed(power: 200, riding: IndoorBikeSimulation(grade: 0)): 7.0 m/s
/// ```
public struct TrainerPhysics: Sendable, Hashable {
    /// The rider's and the bike's mass, in kilograms.
    public var mass: Double
    /// The mass the wheels' inertia adds when they spin up, in kilograms (`I / r²` of both wheels).
    public var wheelMass: Double
    /// The speed, in metres per second; never below 0 (a trainer does not roll backwards).
    public private(set) var speed: Double

    /// Gravity, in m/s².
    public static let gravity = 9.81
    /// The lowest speed the drive force is worked out at: below it, the force is `P / 1 m/s`.
    static let drivingSpeed = 1.0
    /// The longest step of the integration, in seconds.
    static let step = 0.05

    /// A bike of `mass` kilograms with rider, and wheels adding `wheelMass`, at `speed` m/s.
    public init(mass: Double = 85, wheelMass: Double = 1.5, speed: Double = 0) {
        self.mass = mass
        self.wheelMass = wheelMass
        self.speed = max(0, speed)
    }

    /// The force against the bike at `speed` on `simulation`'s road, in newtons (gravity,
    /// rolling and the air; below 0 downhill, where gravity drives).
    public func resistance(at speed: Double, riding simulation: IndoorBikeSimulation) -> Double {
        let angle = atan(simulation.grade / 100)
        let weight = mass * Self.gravity
        let air = speed + simulation.windSpeed
        return weight * sin(angle) + simulation.rollingResistance * weight * cos(angle) + simulation.windResistance * air * abs(air)
    }

    /// Moves on `seconds` with the rider putting in `power` watts on `simulation`'s road.
    public mutating func advance(by seconds: Double, power: Double, riding simulation: IndoorBikeSimulation) {
        var left = max(0, seconds)
        while left > 0 {
            let step = min(left, Self.step)
            let drive = max(0, power) / max(speed, Self.drivingSpeed)
            let acceleration = (drive - resistance(at: speed, riding: simulation)) / (mass + wheelMass)
            speed = max(0, speed + acceleration * step)
            left -= step
        }
    }

    /// The speed `power` watts hold on `simulation`'s road, once the bike has settled: where the
    /// drive meets the resistance (0 when it never does, uphill with too little power to move).
    public func steadySpeed(power: Double, riding simulation: IndoorBikeSimulation) -> Double {
        func net(_ speed: Double) -> Double {
            max(0, power) / max(speed, Self.drivingSpeed) - resistance(at: speed, riding: simulation)
        }
        guard net(0) > 0 else { return 0 }
        var (low, high) = (0.0, 1.0)
        while net(high) > 0, high < 1_000 { high *= 2 }
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if net(middle) > 0 { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
