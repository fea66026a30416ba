import BluetoothSensors
import Foundation
import Testing
import WorkoutSimulators

/// The fake trainer's physics and brake, and the fake machines' control points, in-process: the
/// speed the power makes up and down a grade, with inertia; ERG holding its target at any cadence
/// after a settling response; each request answered as FTMS says.
@Suite("Fake fitness machine")
struct FakeFitnessMachineTests {
    /// The speed a power holds on a flat road without wind, worked out another way: the real root
    /// of `Cw·v³ + Crr·m·g·v − P = 0` (Cardano's formula), where TrainerPhysics searches.
    static func flatSpeed(power: Double, mass: Double, rolling: Double = 0.004, wind: Double = 0.51) -> Double {
        let p = rolling * mass * TrainerPhysics.gravity / wind, q = -power / wind
        let root = sqrt(q * q / 4 + p * p * p / 27)
        return cbrt(-q / 2 + root) + cbrt(-q / 2 - root)
    }

    @Test func theSpeedSettlesWhereThePowerMeetsTheRoadWithoutJumping() {
        var bike = TrainerPhysics(mass: 80)
        let flat = IndoorBikeSimulation(grade: 0)
        var last = bike.speed
        for _ in 0..<240 {
            bike.advance(by: 0.5, power: 250, riding: flat)
            #expect(bike.speed - last <= 1.5, "the bike's inertia: no jump")
            last = bike.speed
        }
        let expected = Self.flatSpeed(power: 250, mass: 80)
        #expect(abs(bike.speed - expected) < 0.01, "\(bike.speed) against \(expected)")
        #expect(abs(bike.steadySpeed(power: 250, riding: flat) - expected) < 0.001)
        // Ten seconds after starting from rest it is far from there yet.
        var start = TrainerPhysics(mass: 80)
        start.advance(by: 2, power: 250, riding: flat)
        #expect(start.speed > 1 && start.speed < expected / 2, "\(start.speed)")
    }

    @Test func aGradeAndAHeadwindSlowItAndADescentSpeedsItWithoutPower() {
        let bike = TrainerPhysics(mass: 85)
        let flat = bike.steadySpeed(power: 250, riding: IndoorBikeSimulation(grade: 0))
        let climb = bike.steadySpeed(power: 250, riding: IndoorBikeSimulation(grade: 6))
        let headwind = bike.steadySpeed(power: 250, riding: IndoorBikeSimulation(windSpeed: 5, grade: 0))
        #expect(climb < flat * 0.6 && headwind < flat, "\(flat) \(climb) \(headwind)")
        // At the climb's speed the three forces, written out here, take the rider's 250 W.
        let angle = atan(0.06), weight = 85 * TrainerPhysics.gravity
        #expect(abs((weight * sin(angle) + 0.004 * weight * cos(angle) + 0.51 * climb * climb) * climb - 250) < 0.5)
        // Coasting down 5 %, gravity drives it to where the air and the tyres take it all.
        var coasting = TrainerPhysics(mass: 85, speed: 5)
        coasting.advance(by: 60, power: 0, riding: IndoorBikeSimulation(grade: -5))
        let terminal = ((weight * sin(atan(0.05)) - 0.004 * weight * cos(atan(0.05))) / 0.51).squareRoot()
        #expect(abs(coasting.speed - terminal) < 0.1, "downhill, gravity drives: \(coasting.speed) against \(terminal)")
        var stopping = TrainerPhysics(mass: 85, speed: 3)
        stopping.advance(by: 60, power: 0, riding: IndoorBikeSimulation(grade: 4))
        #expect(stopping.speed == 0, "uphill without power it stops, and does not roll back")
    }

    /// ERG: the target within a few watts at 90 rpm, then at 70: the cadence's step moves the power
    /// first (the brake's torque is the same), and the brake brings it back.
    @Test func ergHoldsTheTargetAtAnyCadenceAfterASettlingResponse() throws {
        var trainer = FakeFitnessMachine(.indoorBike, rider: .init(power: 150, cadence: 90))
        #expect(trainer.handle([0x00], from: ":1.1").response.result == .success)
        let answer = trainer.handle(try FitnessMachineControlPoint.Request.setTargetPower(220).bytes, from: ":1.1")
        #expect(answer.response.result == .success && answer.status == .targetPowerChanged(220))
        var powers: [Double] = []
        for _ in 0..<10 {
            trainer.advance(by: 1)
            powers.append(trainer.power)
        }
        #expect(abs(powers[0] - 150) > 20 && abs(powers[0] - 220) > 20, "a step that settles, not a copy: \(powers)")
        #expect(abs(powers.last! - 220) < 3, "\(powers)")
        trainer.rider = .init(power: 400, cadence: 70)  // the rider's own power does not matter in ERG
        trainer.advance(by: 1)
        let stepped = trainer.power
        for _ in 0..<9 { trainer.advance(by: 1) }
        #expect(stepped < 200, "the same torque at a lower cadence: \(stepped)")
        #expect(abs(trainer.power - 220) < 3, "\(trainer.power)")
        #expect(trainer.speed > 0 && trainer.totalDistance > 0)
    }

    @Test func theControlPointAnswersAsFTMSSays() throws {
        var trainer = FakeFitnessMachine(.indoorBike)
        func result(_ request: FitnessMachineControlPoint.Request, _ client: String = ":1.1") throws -> FitnessMachineControlPoint.ResultCode {
            trainer.handle(try request.bytes, from: client).response.result
        }
        #expect(try result(.setTargetPower(200)) == .controlNotPermitted, "before control")
        #expect(try result(.setTargetSpeed(3)) == .opCodeNotSupported, "a treadmill's")
        #expect(trainer.handle([0x30], from: ":1.1").response == .init(requestOpCode: 0x30, result: .opCodeNotSupported))
        #expect(try result(.requestControl) == .success)
        #expect(try result(.requestControl, ":1.2") == .controlNotPermitted, "a second client, while the first holds it")
        #expect(try result(.setTargetPower(200), ":1.2") == .controlNotPermitted)
        #expect(try result(.setTargetPower(2_000)) == .invalidParameter, "outside 0 to 1,500 W")
        #expect(try result(.setTargetResistanceLevel(25)) == .invalidParameter)
        #expect(trainer.handle([0x05, 0xC8], from: ":1.1").response.result == .invalidParameter, "a power a byte short")
        #expect(try result(.setIndoorBikeSimulation(IndoorBikeSimulation(grade: 3))) == .success)
        #expect(trainer.mode == .simulation(IndoorBikeSimulation(grade: 3)))
        #expect(try result(.reset) == .success && trainer.controller == nil && trainer.mode == .free)
        #expect(try result(.requestControl, ":1.2") == .success, "free again after the reset")
        trainer.refusesControl = true
        #expect(try result(.requestControl) == .controlNotPermitted)

        var treadmill = FakeFitnessMachine(.treadmill)
        #expect(treadmill.handle([0x00], from: ":1.1").response.result == .success)
        #expect(treadmill.handle(try FitnessMachineControlPoint.Request.setTargetPower(100).bytes, from: ":1.1").response.result == .opCodeNotSupported)
        #expect(treadmill.handle(try FitnessMachineControlPoint.Request.setTargetSpeed(25 / 3.6).bytes, from: ":1.1").response.result == .invalidParameter)
        #expect(treadmill.handle(try FitnessMachineControlPoint.Request.setTargetInclination(4).bytes, from: ":1.1").status == .targetInclinationChanged(4))
    }

    /// In a simulation the rider's power makes the speed: steady on the flat, slower up a grade
    /// set meanwhile (not at once: the bike's momentum carries it on a while).
    @Test func aSimulatedGradeChangesTheSpeedTheRidersPowerMakes() throws {
        var trainer = FakeFitnessMachine(.indoorBike, rider: .init(power: 250, cadence: 90))
        #expect(trainer.handle([0x00], from: ":1.1").response.result == .success)
        _ = trainer.handle(try FitnessMachineControlPoint.Request.setIndoorBikeSimulation(IndoorBikeSimulation(grade: 0)).bytes, from: ":1.1")
        for _ in 0..<120 { trainer.advance(by: 1) }
        let flat = trainer.speed
        #expect(trainer.power == 250 && abs(flat - trainer.physics.steadySpeed(power: 250, riding: IndoorBikeSimulation(grade: 0))) < 0.01)
        _ = trainer.handle(try FitnessMachineControlPoint.Request.setIndoorBikeSimulation(IndoorBikeSimulation(grade: 5)).bytes, from: ":1.1")
        trainer.advance(by: 1)
        #expect(trainer.speed < flat && trainer.speed > flat - 1, "momentum: \(trainer.speed) after 1 s from \(flat)")
        for _ in 0..<120 { trainer.advance(by: 1) }
        #expect(abs(trainer.speed - trainer.physics.steadySpeed(power: 250, riding: IndoorBikeSimulation(grade: 5))) < 0.05)
    }
}
