import Foundation
import GPSCore
import Simulators
import Testing
import TestSupport
@testable import Workout
import WorkoutSimulators

/// `workout record --indoor`: no gpsd, the fake BlueZ's sensors alone (a wheel on a trainer, a
/// power meter, a strap), as a user on a turbo trainer runs it; and killed with SIGKILL in the
/// middle, then `workout recover --end`.
@Suite(.tags(.childProcess, .privateBus), .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"),
       .timeLimit(.minutes(1)))
struct IndoorRecordingTests {
    let commands: SensorCommandTests

    init() throws {
        commands = try SensorCommandTests()
    }

    /// The fake sensors of a turbo trainer: a speed and cadence sensor on the back wheel, a
    /// power meter and a strap, riding a seeded model, ten notifications a second each.
    func sensors(on bus: PrivateBus) async throws -> (FakeBlueZ, [Task<Void, Never>]) {
        let bluez = try await FakeBlueZ(bus: bus.address)
        let wheel = try await bluez.add(FakeBluetoothDevice(address: SensorCommandTests.cadence, name: "SPD", sensors: [.speedAndCadence]))
        let meter = try await bluez.add(FakeBluetoothDevice(address: SensorCommandTests.meter, name: "Assioma", sensors: [.power]))
        let strap = try await bluez.add(FakeBluetoothDevice(address: SensorCommandTests.strap, name: "HRM-Pro", sensors: [.heartRate]))
        let riding = [wheel, meter, strap].enumerated().map { $0.element.ride(seed: UInt64($0.offset + 11), every: .milliseconds(100)) }
        return (bluez, riding)
    }

    var arguments: [String] {
        ["record", "--store", commands.store, "--indoor", "--activity", "cycling", "--ftp", "250",
         "--sensor", SensorCommandTests.cadence, "--sensor", SensorCommandTests.meter, "--sensor", SensorCommandTests.strap]
    }

    /// Whole: the workout is saved indoors, its distance the wheel's (every distance sample
    /// saved, added up), its power and heart rate kept, and `workout show` says so.
    @Test func anIndoorRideIsSavedWithTheWheelsDistance() async throws {
        let bus = try await PrivateBus()
        let (bluez, riding) = try await sensors(on: bus)
        defer {
            riding.forEach { $0.cancel() }
            bluez.stop()
            bus.stop()
        }
        let result = try await commands.run(arguments + ["--bus", bus.address, "--duration", "4", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try commands.json(try #require(result.output.last))
        #expect(object["indoor"] as? Bool == true, "\(object)")
        let text = try #require(object["id"] as? String)
        let id = try #require(UUID(uuidString: text))
        let store = try WorkoutStore(path: commands.store)
        let workout = try #require(try await store.workout(id: id))
        let distances = try await store.samples(of: id, type: .distance)
        #expect(!distances.isEmpty)
        let wheel = distances.map(\.value).reduce(0, +)
        #expect(abs((workout.totals.distance ?? 0) - wheel) < 1e-6, "the wheel's distance: \(workout.totals.distance ?? 0) m, \(wheel) m measured")
        #expect(workout.elapsedTime >= 4 && workout.elapsedTime < 10)
        #expect(try await store.route(of: id) == nil)
        #expect(try await store.samples(of: id, type: .power).count > 10)
        let shown = try await commands.run(["show", "--store", commands.store, id.uuidString])
        #expect(shown.output.contains { $0.contains("indoors") }, "\(shown.output)")
    }

    /// Killed in the middle: what it wrote is an interrupted session, indoors, and `workout recover
    /// --end` saves it with its distance.
    @Test func killedIndoorsItIsRecovered() async throws {
        let bus = try await PrivateBus()
        let (bluez, riding) = try await sensors(on: bus)
        defer {
            riding.forEach { $0.cancel() }
            bluez.stop()
            bus.stop()
        }
        let recorder = try commands.workout(arguments + ["--bus", bus.address])
        var watcher: WorkoutStore?
        await waitUntil {
            if watcher == nil, FileManager.default.fileExists(atPath: commands.store) { watcher = try? WorkoutStore(path: commands.store) }
            let staged = (try? await watcher?.storageCounts().stagedSamples) ?? 0
            return staged >= 30 || recorder.exitStatus != nil
        }
        recorder.send(signal: SIGKILL)
        let status = await recorder.waitUntilExit()
        try #require(status == 128 + SIGKILL, "\(recorder.lines(.error))")

        let listed = try await commands.run(["recover", "--store", commands.store])
        #expect(listed.output.count == 1 && listed.output.first?.contains("(indoors)") == true, "\(listed.output)")
        let saved = try await commands.run(["recover", "--end", "--store", commands.store, "--json"])
        #expect(saved.status == 0, "\(saved.error)")
        let object = try commands.json(try #require(saved.output.first))
        #expect(object["indoor"] as? Bool == true)
        let text = try #require(object["id"] as? String)
        let id = try #require(UUID(uuidString: text))
        let store = try WorkoutStore(path: commands.store)
        let wheel = try await store.samples(of: id, type: .distance).map(\.value).reduce(0, +)
        #expect(wheel > 0 && abs((object["distance_m"] as? Double ?? 0) - wheel) < 0.01, "\(object)")
    }
}
