import BluetoothSensors
import Foundation
import LocationCore
import Synchronization

/// What `workout record --trainer` holds a smart trainer to: a power (ERG) or a grade (a ride
/// simulated up or down it), moved a step at a time by the keys.
enum TrainerTarget: Sendable, Hashable, CustomStringConvertible {
    /// ERG: the trainer holds this many watts at any cadence.
    case power(Int)
    /// The trainer rides this grade, in percent (above 0 is uphill).
    case grade(Double)

    /// A key's step: 10 W, or half a percent.
    static let powerStep = 10
    static let gradeStep = 0.5

    /// The target `steps` key presses up (or down, below 0); a power never below 0 W.
    func moved(by steps: Int) -> TrainerTarget {
        switch self {
        case let .power(watts): return .power(max(0, watts + steps * Self.powerStep))
        case let .grade(percent): return .grade(((percent + Double(steps) * Self.gradeStep) * 10).rounded() / 10)
        }
    }

    var description: String {
        switch self {
        case let .power(watts): return "ERG \(watts) W"
        case let .grade(percent): return String(format: "grade %.1f %%", percent)
        }
    }

    /// The `--json` value: `{"power": 200}` or `{"grade": 4.5}`.
    var object: [String: Any] {
        switch self {
        case let .power(watts): return ["power": watts]
        case let .grade(percent): return ["grade": percent]
        }
    }
}

/// The keys that move a trainer's target, read a byte at a time: `+` (or `=`, the same key
/// unshifted) and the up arrow raise it, `-` (or `_`) and the down arrow lower it. An arrow is
/// three bytes (`ESC [ A`), so the reader keeps where it is in one.
struct TargetKeys {
    private var escape = 0

    /// The steps `byte` moves the target (1 up, -1 down), or `nil` for a byte that does not move
    /// it (another key, or the first bytes of an arrow).
    mutating func read(_ byte: UInt8) -> Int? {
        switch (escape, byte) {
        case (0, 0x1B): escape = 1; return nil
        case (1, UInt8(ascii: "[")), (1, UInt8(ascii: "O")): escape = 2; return nil
        case (2, UInt8(ascii: "A")): escape = 0; return 1
        case (2, UInt8(ascii: "B")): escape = 0; return -1
        case (2, _): escape = 0; return nil  // another arrow, or a key the terminal sent as an escape
        default: break
        }
        escape = 0
        switch byte {
        case UInt8(ascii: "+"), UInt8(ascii: "="): return 1
        case UInt8(ascii: "-"), UInt8(ascii: "_"): return -1
        default: return nil
        }
    }

    /// Whether the reader is inside an escape sequence (its bytes are not keys of their own).
    var isInsideEscape: Bool { escape > 0 }
}

/// A trainer driven while `workout record --trainer` records it: once it connects, control is
/// asked for, the session started and the target set; each key press sets the target a step up or
/// down, the presses that come while one is on its way taken together (a trainer takes one request
/// at a time). A refusal (another app holds the trainer, a target out of its range) is said on
/// standard error and recording goes on; the library sets the last target again when a dropped
/// trainer comes back.
final class TrainerDriver: Sendable {
    private struct State {
        /// The target the keys ask for, and the one the trainer last took.
        var wanted: TrainerTarget?
        var set: TrainerTarget?
        var isControlled = false
        var targetsSet = 0
        var refusals: [String] = []
        /// What the trainer last reported.
        var power: Double?
        var speed: Double?
        var cadence: Double?
    }

    let sensor: BluetoothSensor
    private let state: Mutex<State>
    private let say: @Sendable (String) -> Void
    /// The targets asked for, the newest one alone kept while one is on its way.
    private let wanted: AsyncStream<TrainerTarget>
    private let wants: AsyncStream<TrainerTarget>.Continuation

    /// Drives `sensor` to `target` (none: the trainer is read and left as it is); `say` prints a
    /// line on standard error.
    init(sensor: BluetoothSensor, target: TrainerTarget?, say: @escaping @Sendable (String) -> Void) {
        self.sensor = sensor
        self.state = Mutex(State(wanted: target))
        self.say = say
        (wanted, wants) = AsyncStream.makeStream(of: TrainerTarget.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The session's view of the trainer: its samples, noting the latest power, speed and cadence
    /// for the status line.
    var samples: any SampleSource { Tap(driver: self) }

    /// Takes control once the trainer connects and sets the target, then each one the keys ask
    /// for, until the task is cancelled.
    func run() async {
        for await status in sensor.statusUpdates() where status.connection == .connected { break }
        guard !Task.isCancelled else { return }
        let address = sensor.configuration.address
        do {
            try await sensor.fitnessMachine.requestControl()
            try await sensor.fitnessMachine.startOrResume()
            state.withLock { $0.isControlled = true }
        } catch is CancellationError {
            return
        } catch {
            refused("trainer \(address): \(error) Recording goes on; the trainer is read, not driven.")
            return
        }
        if let target = state.withLock({ $0.wanted }) { wants.yield(target) }
        for await target in wanted {
            do {
                switch target {
                case let .power(watts): try await sensor.fitnessMachine.setTargetPower(watts)
                case let .grade(percent): try await sensor.fitnessMachine.setSimulation(IndoorBikeSimulation(grade: percent))
                }
                state.withLock { state in
                    state.set = target
                    state.targetsSet += 1
                }
                say("trainer \(address): \(target).")
            } catch is CancellationError {
                return
            } catch {
                // The keys go back to what the trainer holds, so the next press moves from there.
                state.withLock { $0.wanted = $0.set }
                refused("trainer \(address): \(error) Recording goes on" + (state.withLock { $0.set }.map { " at \($0)." } ?? "."))
            }
        }
    }

    /// Moves the target `steps` key presses up or down; says why not when there is no target or
    /// the trainer is not under control.
    func move(by steps: Int) {
        let next: TrainerTarget? = state.withLock { state in
            guard state.isControlled, let wanted = state.wanted else { return nil }
            state.wanted = wanted.moved(by: steps)
            return state.wanted
        }
        guard let next else {
            let controlled = state.withLock { $0.isControlled }
            say(controlled
                ? "trainer \(sensor.configuration.address): no target to move: give --target-power or --grade (or the one given was refused: above)."
                : "trainer \(sensor.configuration.address): its target cannot be moved: it is not under control (not connected yet, or it refused control: above).")
            return
        }
        wants.yield(next)
    }

    /// Sets the target (a course's grade where the rider is): taken once the trainer is under
    /// control, the keys moving it from there.
    func set(_ target: TrainerTarget) {
        state.withLock { $0.wanted = target }
        wants.yield(target)
    }

    /// Stops the trainer's session (its brake goes free), when it was started: the workout is
    /// saved whether the trainer answers or not.
    func finish() async {
        wants.finish()
        guard state.withLock({ $0.isControlled }) else { return }
        // Best effort: a trainer gone or slow to answer leaves a saved workout all the same.
        try? await sensor.fitnessMachine.stop()
    }

    /// The status line's part: the target and what the trainer reports, `ERG 200 W (trainer 198 W, 32.1 km/h, 90 rpm)`.
    var statusPart: String {
        state.withLock { state in
            var reported: [String] = []
            if let power = state.power { reported.append("\(Int(power.rounded())) W") }
            if let speed = state.speed { reported.append(String(format: "%.1f km/h", speed * 3.6)) }
            if let cadence = state.cadence { reported.append("\(Int(cadence.rounded())) rpm") }
            let target = state.set.map(\.description) ?? (state.isControlled ? "no target" : "not controlled")
            return reported.isEmpty ? target : "\(target) (trainer \(reported.joined(separator: ", ")))"
        }
    }

    /// The `--json` object: the target the trainer last took, how many were set, the refusals.
    var object: [String: Any] {
        state.withLock { state in
            var object: [String: Any] = ["address": sensor.configuration.address, "controlled": state.isControlled,
                                         "targets_set": state.targetsSet, "refusals": state.refusals]
            object["target"] = state.set?.object
            return object
        }
    }

    private func refused(_ line: String) {
        state.withLock { $0.refusals.append(line) }
        say(line)
    }

    fileprivate func note(_ sample: QuantitySample) {
        state.withLock { state in
            switch sample.type {
            case .power: state.power = sample.value
            case .speed: state.speed = sample.value
            case .cadence: state.cadence = sample.value
            default: break
            }
        }
    }

    /// The trainer's samples as the session reads them, each noted on the way.
    private struct Tap: SampleSource {
        let driver: TrainerDriver

        func start() -> AsyncStream<QuantitySample> {
            let samples = driver.sensor.start()
            return AsyncStream { continuation in
                let reading = Task {
                    for await sample in samples {
                        driver.note(sample)
                        continuation.yield(sample)
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in reading.cancel() }
            }
        }

        func start(delivering deliver: @escaping @Sendable (QuantitySample) -> Void) -> Bool {
            driver.sensor.start { [driver] sample in
                driver.note(sample)
                deliver(sample)
            }
        }

        func stop() {
            driver.sensor.stop()
        }
    }
}
