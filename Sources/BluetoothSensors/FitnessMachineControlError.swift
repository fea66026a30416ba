import LocationCore

/// Why a request to a fitness machine's control point (``FitnessMachineControl``) was not done,
/// with what to do about it.
public enum FitnessMachineControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sensor is not connected to the machine now (not started, or reconnecting).
    case notConnected(address: String)
    /// The device has no Fitness Machine Control Point: it cannot be controlled.
    case noControlPoint(address: String)
    /// The machine refused control (Control Not Permitted to Request Control): another app or
    /// device holds it.
    case controlRefused(address: String)
    /// The machine refused `request` because control had not been given (or was taken back).
    case controlNotPermitted(FitnessMachineControlPoint.Request, address: String)
    /// The machine does not do `request` (Op Code Not Supported); `targets` are those its
    /// Fitness Machine Feature says it takes.
    case notSupported(FitnessMachineControlPoint.Request, address: String, targets: [String])
    /// The machine refused `request`'s parameter (Invalid Parameter); `range` is the one it gave
    /// for it, when it gave one.
    case invalidParameter(FitnessMachineControlPoint.Request, address: String, range: SupportedRange?)
    /// The machine tried and could not (Operation Failed).
    case operationFailed(FitnessMachineControlPoint.Request, address: String)
    /// The machine answered with a result code the specification reserves.
    case unknownResult(FitnessMachineControlPoint.Request, address: String, code: UInt8)
    /// The target is outside the range the machine gave for it on connect: nothing was sent.
    case outsideRange(TargetOutsideRange, address: String)
    /// The request's value cannot be written in its field (a grade of 400 %): nothing was sent.
    case unencodable(UnencodableValue)
    /// No answer came within `timeout` of writing `request`.
    case timedOut(FitnessMachineControlPoint.Request, address: String, timeout: Duration)
    /// The connection dropped before the answer came.
    case disconnected(FitnessMachineControlPoint.Request, address: String)
    /// BlueZ could not write the request: `reason` is its answer.
    case writeFailed(FitnessMachineControlPoint.Request, address: String, reason: String)

    public var description: String {
        switch self {
        case let .notConnected(address):
            return "The fitness machine \(address) is not connected now; start its sensor and wait for it to connect, then try again."
        case let .noControlPoint(address):
            return "The Bluetooth device \(address) has no Fitness Machine Control Point: it cannot be controlled, only read."
        case let .controlRefused(address):
            return "The fitness machine \(address) refused control: another app or device holds it (Zwift, a phone, a head unit). "
                + "Close or disconnect that one, then request control again."
        case let .controlNotPermitted(request, address):
            return "The fitness machine \(address) refused \(Self.describe(request)): it has not given us control. "
                + "Request control first (fitnessMachine.requestControl())."
        case let .notSupported(request, address, targets):
            let offered = targets.isEmpty ? "no target settings" : targets.joined(separator: ", ")
            return "The fitness machine \(address) does not support \(Self.describe(request)) (its features offer: \(offered))."
        case let .invalidParameter(request, address, range):
            let span = range.map { "; the machine's range is \(Self.span(of: $0)): choose a target inside it" } ?? ": check the value against the machine's manual"
            return "The fitness machine \(address) refused \(Self.describe(request)) as an invalid parameter\(span)."
        case let .operationFailed(request, address):
            return "The fitness machine \(address) could not do \(Self.describe(request)) (operation failed). "
                + "Check that it is on and not stopped by its user, then try again."
        case let .unknownResult(request, address, code):
            return "The fitness machine \(address) answered \(Self.describe(request)) with the result code \(code), which FTMS does not define."
        case let .outsideRange(error, address):
            let target = Self.describe(error.range.kind, error.target)
            switch error.reason {
            case .belowMinimum, .aboveMaximum:
                return "Not sent to the fitness machine \(address): \(target) is outside its range of \(Self.span(of: error.range)); choose one inside it."
            case .betweenIncrements:
                let unit = error.range.kind.unit.isEmpty ? "" : " " + error.range.kind.unit
                return "Not sent to the fitness machine \(address): \(target) falls between its steps of \(Self.number(error.range.increment))\(unit) "
                    + "from \(Self.number(error.range.minimum))\(unit); choose one on a step."
            }
        case let .unencodable(error):
            return "Not sent: \(error)"
        case let .timedOut(request, address, timeout):
            return "The fitness machine \(address) did not answer \(Self.describe(request)) within \(LocationError.format(timeout)); "
                + "it may be out of range or busy: check the connection and try again."
        case let .disconnected(request, address):
            return "The fitness machine \(address) disconnected before it answered \(Self.describe(request)); "
                + "it is set again when it comes back, if control had been given."
        case let .writeFailed(request, address, reason):
            return "Could not write \(Self.describe(request)) to the fitness machine \(address): \(reason)."
        }
    }

    /// A request in words: "a target power of 250 W", "control".
    static func describe(_ request: FitnessMachineControlPoint.Request) -> String {
        switch request {
        case .requestControl: return "a request for control"
        case .reset: return "a reset"
        case let .setTargetSpeed(speed): return "a target speed of \(number(speed)) m/s (\(number(speed * 3.6)) km/h)"
        case let .setTargetInclination(inclination): return "a target inclination of \(number(inclination)) %"
        case let .setTargetResistanceLevel(level): return "a target resistance level of \(number(level))"
        case let .setTargetPower(watts): return "a target power of \(watts) W"
        case let .setTargetHeartRate(rate): return "a target heart rate of \(rate) bpm"
        case .startOrResume: return "a start or resume"
        case .stopOrPause(.stop): return "a stop"
        case .stopOrPause(.pause): return "a pause"
        case let .setIndoorBikeSimulation(simulation):
            return "a simulated ride up a \(number(simulation.grade)) % grade (wind \(number(simulation.windSpeed)) m/s, "
                + "rolling resistance \(number(simulation.rollingResistance)), wind resistance \(number(simulation.windResistance)) kg/m)"
        case let .setWheelCircumference(metres): return "a wheel circumference of \(number(metres)) m"
        case let .setTargetedCadence(cadence): return "a targeted cadence of \(number(cadence)) rpm"
        default: return "the request \(request.opCode)"
        }
    }

    /// A target of a range's kind in words: "a target power of 2,000 W".
    static func describe(_ kind: SupportedRange.Kind, _ value: Double) -> String {
        let unit = kind.unit.isEmpty ? "" : " " + kind.unit
        return "a target \(kind.quantity) of \(number(value))\(unit)"
    }

    /// A range in words: "0 W to 1,500 W".
    static func span(of range: SupportedRange) -> String {
        let unit = range.kind.unit.isEmpty ? "" : " " + range.kind.unit
        return "\(number(range.minimum))\(unit) to \(number(range.maximum))\(unit)"
    }

    /// A number as a person writes it: no ".0", at most four decimals, thousands grouped.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10_000).rounded() / 10_000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 {
            let digits = String(Int(abs(rounded)))
            var grouped = ""
            for (index, digit) in digits.enumerated() {
                if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
                grouped.append(digit)
            }
            return (rounded < 0 ? "-" : "") + grouped
        }
        return "\(rounded)"
    }
}
