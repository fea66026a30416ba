import BluetoothSensors
import Foundation
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

/// A trainer's control across what goes wrong on the way: a connection that drops mid-ride and
/// comes back (its target set again), an answer that comes after its timeout (dropped, counted,
/// the next request answered), a disconnection while a request waits, a cancelled request.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct TrainerReconnectTests {
    typealias Ride = TrainerControlTests.Ride
    static let address = TrainerControlTests.address

    /// The trainer drops the connection in ERG and forgets its target (as many do); when it comes
    /// back, control is asked for again and the target set again, and the status says so.
    @Test func aTrainerThatDropsTheConnectionHasItsTargetSetAgain() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        try await ride.control.requestControl()
        try await ride.control.setTargetPower(200)
        await ride.ride(10)
        #expect(ride.trainer.fitnessMachine?.mode == .power(200))
        ride.trainer.disconnect()
        await BlueZClientTests.waitForStatus(ride.sensor) { if case .waitingToReconnect = $0.connection { true } else { false } }
        #expect(ride.trainer.fitnessMachine?.mode == .free && ride.trainer.fitnessMachine?.controller == nil, "it forgot")
        #expect(ride.sensor.status.fitnessMachine?.control == .lost)
        await ride.clock.advance(by: .seconds(1))
        await BlueZClientTests.waitForStatus(ride.sensor) { $0.fitnessMachine?.targetsRestored == 1 }
        let machine = try #require(ride.trainer.fitnessMachine)
        #expect(machine.mode == .power(200) && machine.controller != nil)
        #expect(machine.requests.map(\.request) == [.requestControl, .setTargetPower(200), .requestControl, .setTargetPower(200)])
        let status = try #require(ride.sensor.status.fitnessMachine)
        #expect(status.control == .granted && status.targets.mode == .power(200) && status.restoreError == nil && ride.sensor.status.gaps == 1)
        // And it holds the target again.
        await ride.ride(10)
        await ride.collected.waitFor(20, of: .power)
        #expect(abs(ride.collected.of(.power).last! - 200) <= 3, "\(ride.collected.of(.power))")
    }

    /// A connection that comes back to a trainer now held by another app: the target is not set,
    /// and the status says why.
    @Test func aTargetThatCannotBeSetAgainSaysWhy() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        try await ride.control.requestControl()
        try await ride.control.setTargetPower(180)
        ride.trainer.disconnect()
        await BlueZClientTests.waitForStatus(ride.sensor) { if case .waitingToReconnect = $0.connection { true } else { false } }
        ride.trainer.updateFitnessMachine { $0.refusesControl = true }
        await ride.clock.advance(by: .seconds(1))
        await BlueZClientTests.waitForStatus(ride.sensor) { $0.fitnessMachine?.restoreError != nil }
        #expect(ride.sensor.status.fitnessMachine?.restoreError == .controlRefused(address: Self.address))
        #expect(ride.sensor.status.fitnessMachine?.targetsRestored == 0 && ride.trainer.fitnessMachine?.mode == .free)
    }

    /// An answer held past the timeout: the request throws `timedOut` on the sensor's clock; the
    /// answer, when it comes, finds nothing waiting (counted, no second resume), and the next
    /// request is answered as it should be.
    @Test func aLateAnswerAfterATimeoutIsDroppedAndTheNextIsAnswered() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        try await ride.control.requestControl()
        ride.trainer.holdResponses()
        let waiting = Task { try await ride.control.setTargetPower(210) }
        await ride.trainer.waitUntil(controlPointWrites: 2)
        await ride.clock.advance(by: .milliseconds(4_999))
        await ride.clock.advance(by: .milliseconds(1))
        await #expect(throws: FitnessMachineControlError.timedOut(.setTargetPower(210), address: Self.address, timeout: .seconds(5))) {
            try await waiting.value
        }
        ride.trainer.releaseResponses()
        await BlueZClientTests.waitForStatus(ride.sensor) { $0.fitnessMachine?.lateResponses == 1 }
        // The machine took the target, and said so in its status, though its answer came late.
        #expect(ride.sensor.status.fitnessMachine?.lastStatus == .targetPowerChanged(210))
        try await ride.control.setTargetPower(230)
        #expect(ride.sensor.status.fitnessMachine?.targets.mode == .power(230) && ride.sensor.status.fitnessMachine?.lateResponses == 1)
    }

    /// A disconnection, the timeout and the late answer together: the request ends once, as
    /// disconnected; what comes after finds nothing to resume. A cancelled request ends at once,
    /// and lets the next one through.
    @Test func aDisconnectionATimeoutAndALateAnswerTogetherEndARequestOnce() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        try await ride.control.requestControl()
        ride.trainer.holdResponses()
        let waiting = Task { try await ride.control.setTargetPower(210) }
        await ride.trainer.waitUntil(controlPointWrites: 2)
        // Asked once 210 holds the turn (two tasks started together take it in either order): it
        // waits behind 210, or comes after the disconnection; either way it finds no connection.
        let queued = Task { try await ride.control.setTargetPower(220) }
        ride.trainer.disconnect()
        await #expect(throws: FitnessMachineControlError.disconnected(.setTargetPower(210), address: Self.address)) { try await waiting.value }
        await #expect(throws: FitnessMachineControlError.notConnected(address: Self.address)) { try await queued.value }
        ride.trainer.releaseResponses()  // off the bus: nothing sent
        await BlueZClientTests.waitForStatus(ride.sensor) { if case .waitingToReconnect = $0.connection { true } else { false } }
        await ride.clock.advance(by: .seconds(1))
        await BlueZClientTests.waitForStatus(ride.sensor) { $0.fitnessMachine?.targetsRestored == 1 }
        // The target the machine said it took (its status), though its answer never came.
        #expect(ride.trainer.fitnessMachine?.requests.suffix(2).map(\.request) == [.requestControl, .setTargetPower(210)])
        await ride.clock.advance(by: .seconds(5))  // past the first one's timeout: nothing to resume
        #expect(ride.sensor.status.fitnessMachine?.lateResponses == 0 && ride.sensor.status.fitnessMachine?.restoreError == nil)

        ride.trainer.holdResponses()
        let writes = ride.trainer.controlPointWrites.count
        let cancelled = Task { try await ride.control.setTargetPower(240) }
        await ride.trainer.waitUntil(controlPointWrites: writes + 1)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        ride.trainer.releaseResponses()
        await BlueZClientTests.waitForStatus(ride.sensor) { $0.fitnessMachine?.lateResponses == 1 }
        try await ride.control.setTargetPower(250)
        #expect(ride.trainer.fitnessMachine?.mode == .power(250))
    }
}
