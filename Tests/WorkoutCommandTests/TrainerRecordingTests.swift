import BluetoothSensors
import Foundation
import Simulators
import Synchronization
import Testing
import TestSupport
@testable import Workout
@testable import WorkoutCommand
import WorkoutSimulators

/// `workout record --trainer`: a ride on the fake smart trainer, riding its physical model on
/// real time, as a user on a turbo trainer runs it: held to a target power, driven by keys on a
/// terminal (a pseudo-terminal made by `script`), and each refusal said while the ride is saved.
@Suite(.tags(.childProcess, .privateBus), .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"),
       .timeLimit(.minutes(1)))
struct TrainerRecordingTests {
    static let trainer = "C0:FF:EE:00:00:10"
    let commands: SensorCommandTests

    init() throws {
        commands = try SensorCommandTests()
    }

    /// A private bus, the fake BlueZ, and the fake trainer on it, a rider at 150 W and 90 rpm, its
    /// data sent every 250 ms of real time.
    struct Ride {
        let bus: PrivateBus
        let bluez: FakeBlueZ
        let trainer: FakeBluetoothDevice
        let riding: Task<Void, Never>

        init(_ change: @Sendable (inout FakeFitnessMachine) -> Void = { _ in }) async throws {
            bus = try await PrivateBus()
            bluez = try await FakeBlueZ(bus: bus.address)
            var machine = FakeFitnessMachine(.indoorBike, rider: .init(power: 150, cadence: 90))
            change(&machine)
            trainer = try await bluez.add(FakeBluetoothDevice(address: TrainerRecordingTests.trainer, name: "KICKR", sensors: [.indoorBike], machine: machine))
            riding = trainer.run(every: .milliseconds(250))
        }

        /// The requests the trainer was sent, in order.
        var requests: [FitnessMachineControlPoint.Request] { trainer.fitnessMachine?.requests.map(\.request) ?? [] }

        func stop() {
            riding.cancel()
            bluez.stop()
            bus.stop()
        }
    }

    func arguments(_ ride: Ride) -> [String] {
        ["record", "--store", commands.store, "--trainer", Self.trainer, "--bus", ride.bus.address]
    }

    /// The saved workout's id, from `--json`'s object.
    func id(_ object: [String: Any]) throws -> UUID {
        let text = try #require(object["id"] as? String)
        return try #require(UUID(uuidString: text))
    }

    /// ERG at 200 W: control asked for, the session started, 200 W set, and at the end the brake
    /// let go; the saved ride is indoor cycling, its power the trainer's, 200 W once ERG has
    /// settled, its distance the trainer's; `--json` says what the trainer was held to.
    @Test func aRideHeldAtATargetPowerIsSavedWithTheTrainersPowerAndDistance() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        let result = try await commands.run(arguments(ride) + ["--target-power", "200", "--duration", "10", "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(ride.requests == [.requestControl, .startOrResume, .setTargetPower(200), .stopOrPause(.stop)], "\(ride.requests)")
        let object = try commands.json(try #require(result.output.last))
        let driven = try #require(object["trainer"] as? [String: Any], "\(object)")
        #expect(driven["target"] as? [String: Int] == ["power": 200])
        #expect(driven["controlled"] as? Bool == true && driven["targets_set"] as? Int == 1)
        #expect((driven["refusals"] as? [String])?.isEmpty == true)
        #expect(result.error.contains { $0.contains("trainer \(Self.trainer): ERG 200 W.") }, "\(result.error)")

        let id = try self.id(object)
        let store = try WorkoutStore(path: commands.store)
        let workout = try #require(try await store.workout(id: id))
        #expect(workout.activityType == .cycling && workout.metadata.isIndoor == true)
        let powers = try await store.samples(of: id, type: .power).map(\.value)
        // The brake takes the rider's 150 W to 200 W within about 4 s of real time (the fake's
        // settling), never past it: the ride is long enough for that on a loaded machine.
        #expect(abs((powers.last ?? 0) - 200) <= 3 && (powers.max() ?? 0) <= 203, "ERG reaches and holds 200 W: \(powers)")
        let distance = try await store.samples(of: id, type: .distance).map(\.value).reduce(0, +)
        #expect(distance > 0 && abs((workout.totals.distance ?? 0) - distance) < 1e-6)
    }

    /// `--course` indoors: a virtual ride. The trainer is set to the course's grade where the
    /// trainer's distance puts the rider (5 % up from the start), the rider joins the course, the
    /// JSON's distance along is the workout's distance, and the saved ride names its course and is
    /// a virtual one (FIT's sub sport 58: WorkoutTests' indoor round trips hold the export to it).
    @Test func aCourseRiddenVirtuallySetsTheTrainerToItsGrade() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        let course = commands.folder + "/hill.gpx"
        var gpx = #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Hill</name><trkseg>"#
        for step in 0...200 {
            // 10 m steps east, 5 % up for the first kilometre.
            gpx += #"<trkpt lat="50" lon="\#(8 + Double(step) * 10 / 71_700)"><ele>\#(Double(min(step, 100)) * 0.5)</ele></trkpt>"#
        }
        try Data((gpx + "</trkseg></trk></gpx>").utf8).write(to: URL(fileURLWithPath: course))
        let result = try await commands.run(arguments(ride) + ["--course", course, "--duration", "6", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let grades = ride.requests.compactMap { if case let .setIndoorBikeSimulation(simulation) = $0 { simulation.grade } else { nil } }
        #expect(grades == [5], "\(ride.requests)")
        #expect(!ride.requests.contains { if case .setTargetPower = $0 { true } else { false } })
        #expect(result.error.contains { $0.contains("trainer \(Self.trainer): grade 5.0 %.") }, "\(result.error)")
        #expect(result.error.contains { $0.hasPrefix("workout record: course: joined (0.00 km done") }, "\(result.error)")

        let object = try commands.json(try #require(result.output.last))
        let followed = try #require(object["course"] as? [String: Any], "\(object)")
        #expect(followed["name"] as? String == "Hill" && followed["finished"] as? Bool == false)
        let workout = try #require(try await WorkoutStore(path: commands.store).workout(id: try id(object)))
        let along = try #require(followed["distance_along"] as? Double), distance = try #require(workout.totals.distance)
        #expect(distance > 0 && abs(along - distance) <= 10, "along \(along) m, the ride \(distance) m")
        #expect(workout.metadata.values["course"] == "Hill" && workout.metadata.isVirtual && workout.metadata.isIndoor == true)
    }

    /// A trainer another app holds refuses control: the line says so and what to do, the ride is
    /// recorded and saved all the same (its power the rider's), and nothing else is sent.
    @Test func aTrainerThatRefusesControlIsSaidAndTheRideIsSaved() async throws {
        let ride = try await Ride { $0.refusesControl = true }
        defer { ride.stop() }
        let result = try await commands.run(arguments(ride) + ["--target-power", "200", "--duration", "4", "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(ride.requests == [.requestControl])
        let refusal = try #require(result.error.first { $0.contains("refused control") }, "\(result.error)")
        #expect(refusal.contains("another app or device holds it") && refusal.contains("Recording goes on"))
        let object = try commands.json(try #require(result.output.last))
        let id = try self.id(object)
        let powers = try await WorkoutStore(path: commands.store).samples(of: id, type: .power).map(\.value)
        #expect(!powers.isEmpty && powers.allSatisfy { $0 == 150 }, "the rider's power: \(powers)")
        #expect((object["trainer"] as? [String: Any])?["controlled"] as? Bool == false)
    }

    /// A target beyond the trainer's range (0 to 1,500 W) is refused before it is sent, said
    /// with the range, and the ride goes on and is saved.
    @Test func aTargetOutsideTheTrainersRangeIsSaidAndTheRideGoesOn() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        let result = try await commands.run(arguments(ride) + ["--target-power", "2000", "--duration", "4"])
        #expect(result.status == 0, "\(result.error)")
        #expect(!ride.requests.contains { if case .setTargetPower = $0 { true } else { false } }, "\(ride.requests)")
        let refusal = try #require(result.error.first { $0.contains("2,000 W") }, "\(result.error)")
        #expect(refusal.contains("0 W to 1,500 W") && refusal.contains("Recording goes on"), "\(refusal)")
        #expect(result.output.contains { $0.hasPrefix("Recorded ") && $0.contains("cycling, indoors") }, "\(result.output)")
    }

    /// On a terminal: + and the up arrow raise the target 10 W, - and the down arrow lower it;
    /// each is set on the trainer, said, and shown on the status line with the trainer's power;
    /// q ends and saves.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1), util-linux's"))
    func keysMoveTheTargetOnATerminal() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        let command = ([Repository.builtExecutable("workout").path] + arguments(ride) + ["--target-power", "200"])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        // script(1) runs the command on a pseudo-terminal, our writes its keys, its output ours.
        let terminal = try ChildProcess("/usr/bin/script", ["-qfec", command, "/dev/null"])
        defer { terminal.terminate() }
        /// The lines that say a target was set, once there are `count` of them.
        func targetsSaid(_ count: Int) async -> [String] {
            let seen = Mutex(0)
            _ = await terminal.waitForLine(unfinished: false) { line in
                line.contains("trainer \(Self.trainer): ERG ") && seen.withLock { seen in
                    seen += 1
                    return seen == count
                }
            }
            return terminal.lines().filter { $0.contains("trainer \(Self.trainer): ERG ") }.map { $0.components(separatedBy: ": ").last ?? $0 }
        }
        #expect(await targetsSaid(1) == ["ERG 200 W."], "\(terminal.lines())")
        var expected = ["ERG 200 W."]
        for (key, target) in [("+", 210), ("\u{1B}[A", 220), ("-", 210), ("\u{1B}[B", 200), ("=", 210)] {
            #expect(terminal.write(key))
            expected.append("ERG \(target) W.")
            #expect(await targetsSaid(expected.count) == expected, "after \(key.debugDescription): \(terminal.lines())")
        }
        let status = await terminal.waitForLine { $0.contains("ERG 210 W (trainer ") }
        #expect(status?.contains("rpm") == true, "the status line shows the target and what the trainer reports: \(terminal.lines())")
        #expect(terminal.write("q"))
        #expect(await terminal.waitUntilExit() == 0, "\(terminal.lines())")
        let powers = ride.requests.compactMap { if case let .setTargetPower(watts) = $0 { watts } else { nil } }
        #expect(powers == [200, 210, 220, 210, 200, 210])
        #expect(ride.requests.last == .stopOrPause(.stop))
    }

    /// Options that cannot go together, or values no trainer takes, are refused before anything
    /// starts (64), each saying what to give instead.
    @Test(arguments: [
        (["--target-power", "200"], "give --trainer ADDRESS too"),
        (["--trainer", "KICKR"], "a Bluetooth address such as"),
        (["--trainer", trainer, "--target-power", "200", "--grade", "3"], "give one of them"),
        (["--trainer", trainer, "--target-power", "-5"], "from 0 to 4000"),
        (["--trainer", trainer, "--grade", "55"], "from -40 to 40"),
        (["--trainer", trainer, "localhost:2947"], "give no server and no --simulate"),
        (["--trainer", trainer, "--heart-rate-simulate", "7"], "give --sensor for a strap instead"),
    ])
    func optionsThatCannotGoTogetherAreRefused(arguments: [String], says: String) async throws {
        let result = try await commands.run(["record", "--store", commands.store] + arguments)
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.joined(separator: " ").contains(says), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: commands.store), "nothing was opened")
    }

    /// The keys, byte by byte: an arrow is three bytes and moves the target once; another
    /// escape sequence moves nothing, and the key after it is read as a key.
    @Test func targetKeysReadArrowsAndSigns() {
        var keys = TargetKeys()
        let bytes = Array("+-=_\u{1B}[A\u{1B}[B\u{1B}[C+\u{1B}OAx".utf8)
        #expect(bytes.compactMap { keys.read($0) } == [1, -1, 1, -1, 1, -1, 1, 1])
        #expect(TrainerTarget.power(5).moved(by: -1) == .power(0))
        #expect(TrainerTarget.grade(4).moved(by: 3) == .grade(5.5))
    }
}
