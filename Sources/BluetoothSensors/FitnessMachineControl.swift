import GPSCore


/// A smart trainer's or a treadmill's control (its Fitness Machine Control Point), while its
/// ``BluetoothSensor`` records: ``BluetoothSensor/fitnessMachine``.
///
/// ```swift
/// let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:10")
/// _ = trainer.start(delivering: { sample in print(sample) })
/// for await status in trainer.statusUpdates() where status.connection == .connected { break }
/// try await trainer.fitnessMachine.requestControl()
/// try await trainer.fitnessMachine.setTargetPower(200)     // ERG: 200 W at any cadence
/// try await trainer.fitnessMachine.setSimulation(IndoorBikeSimulation(grade: 4))
/// ```
///
/// Each call writes its request (`WriteValue`, the control point's indications turned on when
/// the sensor connected) and returns once the machine's answer to it comes (an indication with the
/// request's op code), or throws ``FitnessMachineControlError`` saying what to do: it has not
/// given control, it does not support the request, the value is out of its range, another app
/// holds it, no answer came within the sensor's `controlTimeout`. A target outside the range the
/// machine gave on connect is refused before anything is sent. Calls take turns: one request is
/// on the machine at a time, as FTMS asks. Throws `CancellationError` when the task is cancelled.
///
/// **A machine that drops the connection and comes back is set again**: once control was given,
/// it is asked for again, then the session started again if it had been, then the last targets
/// (``BluetoothSensorStatus/FitnessMachine/targetsRestored`` counts it, and
/// ``BluetoothSensorStatus/FitnessMachine/restoreError`` says why not). A machine that takes control
/// back itself (Control Permission Lost, or a reset) is not asked again: call ``requestControl()``.
public final class FitnessMachineControl: Sendable {
    let runner: SensorRunner
    /// Whether control was given, and not taken back since: a connection that comes back asks again.
    private var wantsControl: Locked<Bool> { runner.wantsControl }

    init(runner: SensorRunner) {
        self.runner = runner
    }

    /// Asks for control of the machine: every other request needs it first. Throws
    /// ``FitnessMachineControlError/controlRefused(address:)`` when another app or device holds it.
    public func requestControl() async throws {
        try await send(.requestControl)
    }

    /// Resets the machine's session: its targets go, and control with them (ask for it again).
    public func reset() async throws {
        try await send(.reset)
    }

    /// Starts or resumes the session.
    public func startOrResume() async throws {
        try await send(.startOrResume)
    }

    /// Stops the session.
    public func stop() async throws {
        try await send(.stopOrPause(.stop))
    }

    /// Pauses the session, to resume later.
    public func pause() async throws {
        try await send(.stopOrPause(.pause))
    }

    /// Holds `watts` at any cadence (ERG). Refused before it is sent when outside the machine's
    /// Supported Power Range.
    public func setTargetPower(_ watts: Int) async throws {
        try await send(.setTargetPower(watts))
    }

    /// Sets the resistance to `level`, in the machine's steps. Refused before it is sent when
    /// outside its Supported Resistance Level Range.
    public func setTargetResistanceLevel(_ level: Double) async throws {
        try await send(.setTargetResistanceLevel(level))
    }

    /// Rides `simulation`: the trainer's resistance follows the grade, the wind and the
    /// coefficients, and the rider's power makes the speed.
    public func setSimulation(_ simulation: IndoorBikeSimulation) async throws {
        try await send(.setIndoorBikeSimulation(simulation))
    }

    /// Sets a treadmill's belt to `metresPerSecond`. Refused before it is sent when outside its
    /// Supported Speed Range.
    public func setTargetSpeed(_ metresPerSecond: Double) async throws {
        try await send(.setTargetSpeed(metresPerSecond))
    }

    /// Sets a treadmill's incline to `percent`. Refused before it is sent when outside its
    /// Supported Inclination Range.
    public func setTargetInclination(_ percent: Double) async throws {
        try await send(.setTargetInclination(percent))
    }

    /// Sends `request` and returns the machine's successful answer (a spin down's gives its
    /// target speeds); any other answer throws its ``FitnessMachineControlError``. The other
    /// calls go through here.
    @discardableResult
    public func send(_ request: FitnessMachineControlPoint.Request) async throws -> FitnessMachineControlPoint.Response {
        let address = runner.configuration.address
        let machine = runner.status.fitnessMachine
        if let kind = Self.rangeKind(of: request), let value = Self.target(of: request), let range = machine?.ranges[kind] {
            do throws(TargetOutsideRange) {
                try range.check(value)
            } catch {
                throw FitnessMachineControlError.outsideRange(error, address: address)
            }
        }
        let bytes: [UInt8]
        do throws(UnencodableValue) {
            bytes = try request.bytes
        } catch {
            throw FitnessMachineControlError.unencodable(error)
        }
        guard runner.controlPoint.isAttached else {
            throw runner.status.connection == .connected
                ? FitnessMachineControlError.noControlPoint(address: address) : .notConnected(address: address)
        }
        let generation = runner.generation
        let response = try await runner.controlPoint.exchange(request, bytes: bytes)
        guard response.result == .success else {
            if request == .requestControl, response.result == .controlNotPermitted {
                wantsControl.withLock { $0 = false }
                runner.update(generation: generation) { $0.fitnessMachine?.control = .refused }
                throw FitnessMachineControlError.controlRefused(address: address)
            }
            throw error(for: request, result: response.result)
        }
        taken(request, generation: generation)
        return response
    }

    /// The status once `request` succeeded.
    private func taken(_ request: FitnessMachineControlPoint.Request, generation: UInt64) {
        switch request {
        case .requestControl: wantsControl.withLock { $0 = true }
        case .reset: wantsControl.withLock { $0 = false }
        default: break
        }
        runner.update(generation: generation) { status in
            switch request {
            case .requestControl: status.fitnessMachine?.control = .granted
            case .reset: status.fitnessMachine?.control = .lost
            default: break
            }
            status.fitnessMachine?.targets.take(request)
        }
    }

    /// The error of a refused request.
    private func error(for request: FitnessMachineControlPoint.Request, result: FitnessMachineControlPoint.ResultCode) -> FitnessMachineControlError {
        let address = runner.configuration.address
        let machine = runner.status.fitnessMachine
        switch result {
        case .opCodeNotSupported:
            return .notSupported(request, address: address, targets: machine?.feature?.targets.names ?? [])
        case .invalidParameter:
            return .invalidParameter(request, address: address, range: Self.rangeKind(of: request).flatMap { machine?.ranges[$0] })
        case .operationFailed:
            return .operationFailed(request, address: address)
        case .controlNotPermitted:
            return .controlNotPermitted(request, address: address)
        case .success, .unknown:
            return .unknownResult(request, address: address, code: result.rawValue)
        }
    }

    /// The machine said it took control back (Control Permission Lost, or a reset): a connection
    /// that comes back does not ask again.
    func controlTakenBack() {
        wantsControl.withLock { $0 = false }
    }

    /// On a connection that came back, control having been given on one before: control asked
    /// for again, then the session and the targets set again. Says so in the status.
    func restore(generation: UInt64) async {
        do {
            try await send(.requestControl)
            // Read as each is sent: a target a program set meanwhile is the one sent.
            for request in runner.status.fitnessMachine?.targets.requests ?? [] { try await send(request) }
            runner.update(generation: generation) { status in
                status.fitnessMachine?.targetsRestored += 1
                status.fitnessMachine?.restoreError = nil
            }
        } catch let error as FitnessMachineControlError {
            runner.logger.info("a fitness machine's targets could not be set again", metadata: ["error": "\(error)"])
            runner.update(generation: generation) { $0.fitnessMachine?.restoreError = error }
        } catch {
            // Cancelled: the connection ended, or the sensor stopped; the next one tries again.
        }
    }

    /// The range a request's target is checked against.
    static func rangeKind(of request: FitnessMachineControlPoint.Request) -> SupportedRange.Kind? {
        switch request {
        case .setTargetSpeed: .speed
        case .setTargetInclination: .inclination
        case .setTargetResistanceLevel: .resistanceLevel
        case .setTargetPower: .power
        case .setTargetHeartRate: .heartRate
        default: nil
        }
    }

    /// A request's target, in its range's unit.
    static func target(of request: FitnessMachineControlPoint.Request) -> Double? {
        switch request {
        case let .setTargetSpeed(value), let .setTargetInclination(value), let .setTargetResistanceLevel(value): value
        case let .setTargetPower(value), let .setTargetHeartRate(value): Double(value)
        default: nil
        }
    }
}
