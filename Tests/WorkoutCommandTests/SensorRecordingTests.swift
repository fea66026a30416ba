import Foundation
import GPSCore
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

extension Stage.Alone {
    /// `workout record --sensor` with three fake sensors, in real time. Alone in `scripts/test`:
    /// the recording plays its ride ten times as fast, a lap of 150 m every 2 s of real time, and
    /// the child must keep that pace. Beside the parallel stage (package builds, the
    /// ThreadSanitizer build) it was held off the cores for seconds at a time: laps then passed
    /// with no sample of any sensor in them, and the test, which holds each lap to its sensors,
    /// failed in two recent fresh-clone runs.
    @Suite(.tags(.childProcess, .privateBus), .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"),
           .timeLimit(.minutes(1)))
    struct SensorRecordingTests {
        /// The store, the ride and the commands of `workout sensors`' tests.
        let commands: SensorCommandTests

        init() throws {
            commands = try SensorCommandTests()
        }

        var store: String { commands.store }

        func workout(_ arguments: [String]) throws -> ChildProcess { try commands.workout(arguments) }

        func run(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
            try await commands.run(arguments)
        }

        func json(_ line: String) throws -> [String: Any] { try commands.json(line) }

        func writeRide() throws -> String { try commands.writeRide() }

        /// `workout record --sensor` three times records heart rate, cadence and power from a strap,
        /// a speed and cadence sensor and a power meter riding a seeded model, dated by the ride's
        /// fixes, into a saved workout whose laps have them. The strap drops out in the middle: a
        /// line says it was lost, another that it is back, and the JSON counts the gap.
        @Test func recordingFromThreeSensorsSavesThemPerLap() async throws {
            let bus = try await PrivateBus()
            let bluez = try await FakeBlueZ(bus: bus.address)
            defer {
                bluez.stop()
                bus.stop()
            }
            let strap = try await bluez.add(FakeBluetoothDevice(address: SensorCommandTests.strap, name: "HRM-Pro", sensors: [.heartRate], batteryPercent: 81))
            let cadence = try await bluez.add(FakeBluetoothDevice(address: SensorCommandTests.cadence, name: "CAD", sensors: [.speedAndCadence]))
            let meter = try await bluez.add(FakeBluetoothDevice(address: SensorCommandTests.meter, name: "Assioma", sensors: [.power]))
            // Ten measurements a second of real time each: the ride plays 10 times as fast, so one a
            // second of the ride's time.
            let riding = [strap, cadence, meter].enumerated().map { $0.element.ride(seed: UInt64($0.offset + 1), every: .milliseconds(100)) }
            defer { riding.forEach { $0.cancel() } }

            let recorder = try workout([
                "record", "--store", store, "--simulate", try writeRide(), "--speed", "10", "--activity", "cycling", "--auto-lap", "150",
                "--sensor", SensorCommandTests.strap, "--sensor", SensorCommandTests.cadence.lowercased(), "--sensor", SensorCommandTests.meter, "--bus", bus.address, "--json",
            ])
            // Every sensor notifying, or the recorder gone: whichever comes first.
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for device in [strap, cadence, meter] { await device.waitUntil(notifying: device.sensors[0]) }
                }
                group.addTask { _ = await recorder.waitUntilExit() }
                await group.next()
                group.cancelAll()
            }
            try #require(recorder.exitStatus == nil, "\(recorder.lines(.error))")
            // Some seconds of the ride, the strap out of range, back, and some more.
            await strap.waitUntil(sentNotifications: 30)
            strap.disconnect()
            await strap.waitUntil(connections: 2, notifying: .heartRate)
            let sentBefore = strap.sentNotifications
            await strap.waitUntil(sentNotifications: sentBefore + 50)
            recorder.send(signal: SIGINT)
            #expect(await recorder.waitUntilExit() == 0, "\(recorder.lines(.error))")

            let errors = recorder.lines(.error)
            #expect(errors.contains { $0.contains("sensor \(SensorCommandTests.strap) (HRM-Pro) connected: heart rate, battery 81%, worn on the chest") }, "\(errors)")
            #expect(errors.contains { $0.contains("sensor \(SensorCommandTests.meter) (Assioma) connected: power") }, "\(errors)")
            #expect(errors.contains { $0.contains("sensor \(SensorCommandTests.strap) (HRM-Pro) was lost; connecting again") }, "\(errors)")
            #expect(errors.contains { $0.contains("sensor \(SensorCommandTests.strap) (HRM-Pro) is back after") }, "\(errors)")
            let recorded = try json(try #require(recorder.lines(.output).first))
            let samples = try #require(recorded["samples"] as? [String: [String: Any]])
            for type in ["heart_rate", "cadence", "power", "speed", "distance", "heartbeat_interval"] {
                #expect((samples[type]?["count"] as? Int ?? 0) > 10, "\(type): \(samples[type] ?? [:])")
            }
            // The model's ranges: the values are the sensors', not made up here.
            #expect((110...175).contains(samples["heart_rate"]?["maximum"] as? Double ?? 0))
            #expect((120...320).contains(samples["power"]?["maximum"] as? Double ?? 0))
            let laps = try #require(recorded["laps"] as? [[String: Any]])
            #expect(laps.count >= 4, "\(laps.count) laps of 150 m")
            // The laps between the first (the recording starts at once: a sensor may connect a few
            // seconds into it) and the last (it may be a moment long) have cadence and power; heart
            // rate all but one at most: 150 m is under 2 s here, and the strap is gone about as long.
            let middle = laps.dropFirst().dropLast().map { $0["samples"] as? [String: Any] ?? [:] }
            #expect(middle.allSatisfy { $0["cadence"] != nil && $0["power"] != nil }, "\(middle.map(\.keys))")
            #expect(middle.filter { $0["heart_rate"] == nil }.count <= 1, "\(middle.map(\.keys))")
            let sensors = try #require(recorded["sensors"] as? [[String: Any]])
            #expect(sensors.compactMap { $0["address"] as? String } == [SensorCommandTests.strap, SensorCommandTests.cadence, SensorCommandTests.meter])
            #expect(sensors.allSatisfy { ($0["measurements"] as? Int ?? 0) > 10 })
            #expect(sensors.first?["gaps"] as? Int == 1 && sensors.first?["battery"] as? Int == 81)
            #expect(sensors.dropFirst().allSatisfy { $0["gaps"] as? Int == 0 })
            #expect(!strap.isConnected && !cadence.isConnected && !meter.isConnected, "the recording disconnects its sensors as it ends")
            // `workout show` prints each type to its sensors' precision: the times between beats to the millisecond.
            let shown = try await run(["show", "--store", store, try #require(recorded["id"] as? String)])
            let intervals = try #require(shown.output.first { $0.contains("heartbeat interval") }, "\(shown.output)")
            #expect(intervals.wholeMatch(of: #/  heartbeat interval avg 0\.\d{3} max \d\.\d{3} s \(\d+ samples\)/#) != nil, "\(intervals)")
        }
    }
}
