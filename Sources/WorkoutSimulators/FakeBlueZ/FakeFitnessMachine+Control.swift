import BluetoothSensors
import Foundation

extension FakeFitnessMachine {
    /// Reads the control point request `bytes` written by `client` (a D-Bus unique name) and does
    /// it, as a real machine does: returns its response, to indicate, and the status it notifies
    /// when a target changed.
    public mutating func handle(_ bytes: [UInt8], from client: String) -> (response: FitnessMachineControlPoint.Response, status: FitnessMachineStatus?) {
        let request: FitnessMachineControlPoint.Request
        do throws(MalformedNotification) {
            request = try FitnessMachineControlPoint.Request(bytes: bytes)
        } catch {
            return (.refusing(bytes, because: error), nil)
        }
        requests.append((request, client))
        func answer(_ result: FitnessMachineControlPoint.ResultCode) -> (FitnessMachineControlPoint.Response, FitnessMachineStatus?) {
            (FitnessMachineControlPoint.Response(to: request, result: result), nil)
        }
        guard supports(request) else { return answer(.opCodeNotSupported) }
        if request == .requestControl {
            guard !refusesControl, controller == nil || controller == client else { return answer(.controlNotPermitted) }
            controller = client
            return answer(.success)
        }
        guard controller == client else { return answer(.controlNotPermitted) }
        if let (kind, value) = Self.target(of: request), let range = range(kind), (try? range.check(value)) == nil {  // thrown: out of range
            return answer(.invalidParameter)  // a target outside its range: it does not ride it
        }
        let status = take(request)
        return (FitnessMachineControlPoint.Response(to: request, result: .success), status)
    }

    /// Whether its features offer `request`.
    public func supports(_ request: FitnessMachineControlPoint.Request) -> Bool {
        let targets = feature.targets
        switch (kind, request) {
        case (_, .requestControl), (_, .reset), (_, .startOrResume), (_, .stopOrPause): return true
        case (.indoorBike, .setTargetPower): return targets.contains(.power)
        case (.indoorBike, .setTargetResistanceLevel): return targets.contains(.resistance)
        case (.indoorBike, .setIndoorBikeSimulation): return targets.contains(.indoorBikeSimulation)
        case (.indoorBike, .setWheelCircumference): return targets.contains(.wheelCircumference)
        case (.treadmill, .setTargetSpeed): return targets.contains(.speed)
        case (.treadmill, .setTargetInclination): return targets.contains(.inclination)
        default: return false
        }
    }

    /// The target a request sets, with the range it is checked against.
    static func target(of request: FitnessMachineControlPoint.Request) -> (SupportedRange.Kind, Double)? {
        switch request {
        case let .setTargetPower(watts): (.power, Double(watts))
        case let .setTargetResistanceLevel(level): (.resistanceLevel, level)
        case let .setTargetSpeed(speed): (.speed, speed)
        case let .setTargetInclination(inclination): (.inclination, inclination)
        default: nil
        }
    }

    /// Does a request it took; the status it notifies, if a target changed.
    private mutating func take(_ request: FitnessMachineControlPoint.Request) -> FitnessMachineStatus? {
        switch request {
        case .reset:
            (mode, ergTorque, controller, isStarted, targetSpeed, targetInclination) = (.free, nil, nil, false, 0, 0)
            return .reset
        case .startOrResume:
            isStarted = true
        case .stopOrPause:
            isStarted = false
        case let .setTargetPower(watts):
            // The brake starts from the torque the rider turns now, and settles to the target's.
            ergTorque = power / max(rider.cadence, 1)
            mode = .power(watts)
            return .targetPowerChanged(watts)
        case let .setTargetResistanceLevel(level):
            (mode, ergTorque) = (.resistanceLevel(level), nil)
            return .targetResistanceLevelChanged(level)
        case let .setIndoorBikeSimulation(simulation):
            (mode, ergTorque) = (.simulation(simulation), nil)
            return .indoorBikeSimulationChanged(simulation)
        case let .setTargetSpeed(speed):
            targetSpeed = speed
            return .targetSpeedChanged(speed)
        case let .setTargetInclination(inclination):
            targetInclination = inclination
            return .targetInclinationChanged(inclination)
        default:
            break
        }
        return nil
    }

    /// Its connection dropped: it lets go of its controller, and a trainer of its target (back to
    /// the rider's power on the flat), as many do, so that a client that comes back sets it again.
    mutating func connectionDropped() {
        controller = nil
        if kind == .indoorBike { (mode, ergTorque) = (.free, nil) }
    }

    // MARK: - Riding

    /// Moves on `seconds`: a trainer's brake and bike, a treadmill's belt and deck, the distance.
    public mutating func advance(by seconds: Double) {
        let step = max(0, seconds)
        let before = speed
        switch kind {
        case .indoorBike:
            let flat = IndoorBikeSimulation(grade: 0)
            switch mode {
            case .free:
                power = max(0, rider.power)
                physics.advance(by: step, power: power, riding: flat)
            case let .simulation(simulation):
                power = max(0, rider.power)
                physics.advance(by: step, power: power, riding: simulation)
            case let .power(target):
                let cadence = max(0, rider.cadence)
                let goal = cadence > 0 ? Double(target) / cadence : 0
                let torque = (ergTorque ?? goal) + (goal - (ergTorque ?? goal)) * (1 - exp(-step / Self.ergSettling))
                ergTorque = torque
                power = torque * cadence
                physics.advance(by: step, power: power, riding: flat)
            case let .resistanceLevel(level):
                power = Self.brakeTorque(level: level) * max(0, rider.cadence)
                physics.advance(by: step, power: power, riding: flat)
            }
        case .treadmill:
            let goal = isStarted ? targetSpeed : 0
            beltSpeed += max(-Self.beltAcceleration * step, min(Self.beltAcceleration * step, goal - beltSpeed))
            inclination += max(-Self.inclineRate * step, min(Self.inclineRate * step, targetInclination - inclination))
        }
        totalDistance += (before + speed) / 2 * step
    }

    /// Its data as it notifies them now: Indoor Bike Data (speed, cadence, distance, the level of
    /// a resistance, power), or Treadmill Data (speed, distance, inclination).
    public var data: [UInt8] {
        let distance = (totalDistance.truncatingRemainder(dividingBy: 16_777_216)).rounded(.down)
        switch kind {
        case .indoorBike:
            var level: Double?
            if case let .resistanceLevel(value) = mode { level = value }
            return IndoorBikeData(
                speed: speed, cadence: (cadence * 2).rounded() / 2, totalDistance: distance, resistanceLevel: level,
                power: Int(power.rounded())
            ).bytes
        case .treadmill:
            let angle = atan(inclination / 100) * 180 / .pi
            return TreadmillData(speed: speed, totalDistance: distance, incline: .init(inclination: inclination, rampAngle: angle)).bytes
        }
    }
}
