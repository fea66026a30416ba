import BluetoothSensors
import Foundation
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

/// The fake trainer held to clients we did not write: pycycling's FitnessMachineService and
/// pyftms's FitnessMachine (PyPI, over bleak) find it on the private bus, read its features and
/// power range, drive its control point (control, a target power, a simulated grade) and read its
/// answers and its Indoor Bike Data, the trainer riding its model on a virtual clock the test
/// moves a second for each notification the client waits for (`scripts/peers/ftms_trainer.py`).
@Suite(
    .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"),
    .enabled(if: FTMSPeers.isAvailable, "\(FTMSPeers.missing)"),
    .timeLimit(.minutes(1)))
struct TrainerPeerTests {
    static let address = "C0:FF:EE:00:00:10"
    static let target = 200
    static let grade = 5.0

    /// What a client read and answered, and what the trainer sent at each step.
    struct Drive {
        var found: [String: Any] = [:]
        var responses: [[Int]] = []
        /// The client's readings, a step each.
        var read: [[String: Any]] = []
        /// The power (rounded) and speed (km/h) the trainer sent at each step.
        var sent: [(power: Int, speedKilometresPerHour: Double)] = []
        var requests: [FitnessMachineControlPoint.Request] = []
    }

    /// Runs `client` against the fake trainer, moving its clock a second at each `tick`.
    static func drive(with client: String) async throws -> Drive {
        let bus = try await PrivateBus()
        let bluez = try await FakeBlueZ(bus: bus.address)
        defer {
            bluez.stop()
            bus.stop()
        }
        let trainer = try await bluez.add(FakeBluetoothDevice(
            address: address, name: "KICKR", sensors: [.indoorBike], machine: FakeFitnessMachine(.indoorBike, rider: .init(power: 250, cadence: 90))))
        let clock = VirtualClock()
        let running = trainer.run(clock: clock)
        defer { running.cancel() }
        let peer = try ChildProcess(
            try #require(FTMSPeers.python), [BLEPeers.script("ftms_trainer.py"), client, address, "\(target)", "\(grade)"],
            environment: ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus.address]) { $1 })
        defer { peer.terminate() }
        var drive = Drive()
        var step = 1
        while true {
            let tick = "tick \(step)"
            let next = await peer.waitForLine { $0 == tick || $0 == "done" || $0.contains("\"error\"") }
            let line = try #require(next, "\(client): \(peer.lines(.error).suffix(20).joined(separator: "\n"))")
            guard line.hasPrefix("tick") else {
                try #require(line == "done", "\(client): \(line)\n\(peer.lines(.error).suffix(20).joined(separator: "\n"))")
                break
            }
            await clock.advance(by: .seconds(1))
            let machine = try #require(trainer.fitnessMachine)
            drive.sent.append((Int(machine.power.rounded()), (machine.speed * 360).rounded() / 100))
            step += 1
        }
        #expect(await peer.waitUntilExit() == 0)
        for line in peer.lines(.output) where line.hasPrefix("{") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let found = object["found"] as? [String: Any] { drive.found = found }
            if let response = object["response"] as? [String: Int] { drive.responses.append([response["op"] ?? -1, response["result"] ?? -1]) }
            if let data = object["data"] as? [String: Any] { drive.read.append(data) }
        }
        drive.requests = trainer.fitnessMachine?.requests.map(\.request) ?? []
        return drive
    }

    /// What both clients must have seen: the powers and speeds the trainer sent, step by step; the
    /// target reached in ERG (three steps in a row within 3 W); the rider slowed by the grade.
    static func expectFollowed(_ drive: Drive, _ client: String) throws {
        try #require(drive.read.count == drive.sent.count && drive.read.count > 15, "\(client): \(drive.read.count) read, \(drive.sent.count) sent")
        let powers = drive.read.map { $0["power"] as? Int }
        #expect(powers == drive.sent.map(\.power), "\(client) read the powers the trainer sent")
        let speeds = drive.read.compactMap { ($0["speed_kmh"] as? Double) ?? ($0["speed_kmh"] as? Int).map(Double.init) }
        // pyftms scales by multiplying (0.01), pycycling divides (by 100): the same to 1e-9 km/h.
        #expect(speeds.count == drive.sent.count && zip(speeds, drive.sent).allSatisfy { abs($0 - $1.speedKilometresPerHour) < 1e-9 },
                "\(client) read the speeds the trainer sent: \(speeds) against \(drive.sent.map(\.speedKilometresPerHour))")
        let erg = powers.dropLast(15).compactMap { $0 }
        #expect(erg.suffix(3).allSatisfy { abs($0 - target) <= 3 } && erg.first != target, "\(client): ERG from the rider's 250 W to \(target) W: \(erg)")
        // Up the grade the rider's 250 W slow the bike towards the speed they hold there, smoothly.
        let climbing = Array(speeds.suffix(15))
        let steady = TrainerPhysics().steadySpeed(power: 250, riding: IndoorBikeSimulation(grade: grade)) * 3.6
        #expect(zip(climbing, climbing.dropFirst()).allSatisfy { $1 < $0 } && climbing.last! - steady < (climbing.first! - steady) / 2,
                "\(client): up \(grade) %, towards \(steady) km/h: \(climbing)")
        #expect(drive.sent.suffix(15).allSatisfy { $0.power == 250 }, "the rider's power, in the simulation")
    }

    @Test func pycyclingDrivesTheTrainersControlPoint() async throws {
        let drive = try await Self.drive(with: "pycycling")
        #expect(Set(drive.found["features"] as? [String] ?? []).isSuperset(of: ["cadence_supported", "power_measurement_supported"]), "\(drive.found)")
        #expect(Set(drive.found["targets"] as? [String] ?? []).isSuperset(of: [
            "power_target_setting_supported", "indoor_bike_simulation_parameters_supported",
        ]), "\(drive.found)")
        #expect(drive.found["power_range"] as? [Int] == [0, 1_500, 1])
        #expect(drive.responses == [[0x00, 0x01], [0x05, 0x01], [0x11, 0x01]], "control, the target and the grade, each a success")
        #expect(drive.requests == [.requestControl, .setTargetPower(Self.target), .setIndoorBikeSimulation(IndoorBikeSimulation(grade: Self.grade))])
        try Self.expectFollowed(drive, "pycycling")
    }

    @Test(.enabled(if: FTMSPeers.hasPyFTMS, "\(FTMSPeers.missingPyFTMS)"))
    func pyftmsDrivesTheTrainersControlPoint() async throws {
        let drive = try await Self.drive(with: "pyftms")
        // pyftms found it by a scan for the FTMS Service Data, which says an indoor bike.
        #expect(drive.found["type"] as? String == "INDOOR_BIKE", "\(drive.found)")
        let ranges = drive.found["ranges"] as? [String: [Double]] ?? [:]
        #expect(ranges.values.contains([0, 1_500, 1]), "\(drive.found)")
        // It asks for control itself before its first request. (Its simulation goes through its
        // command writer: the script says why.)
        #expect(drive.responses == [[0x05, 0x01], [0x11, 0x01]])
        #expect(drive.requests == [.requestControl, .setTargetPower(Self.target), .setIndoorBikeSimulation(IndoorBikeSimulation(grade: Self.grade))])
        try Self.expectFollowed(drive, "pyftms")
    }
}
