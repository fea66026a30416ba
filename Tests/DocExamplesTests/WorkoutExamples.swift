import BluetoothGATT
import BluetoothSensors
import Foundation
import GPX
import LocationFacade
import Simulators
import Testing
import Workout
import WorkoutSimulators

// The examples of Workout, WorkoutSimulators, BluetoothGATT and BluetoothSensors (and FixTime's,
// which names a BluetoothSensor), as printed in their `///` comments and DocC articles, in
// functions that give them what they name. ReadmeTests checks that each example is here; the
// tests below run those that need nothing outside the process.

enum WorkoutExamples {
    // Workout/Store/WorkoutStore.swift
    static func store(_ workout: WorkoutRecord, _ heartRateSamples: [QuantitySample], _ route: [Location]) async throws {
        let store = try WorkoutStore()                     // $XDG_DATA_HOME/swift-gps-facade/workouts.sqlite
        try await store.save(workout)
        try await store.addSamples(heartRateSamples, to: workout)
        let routeBuilder = RouteBuilder(store: store)
        try await routeBuilder.insertRouteData(route)       // as many batches as needed
        try await routeBuilder.finishRoute(with: workout, metadata: nil)
    }

    // Workout.docc/RecordingAndSavingWorkouts.md
    static func article(_ start: Date, _ end: Date, _ heartRate: [QuantitySample], _ route: [Location]) async throws {
        let store = try WorkoutStore()          // $XDG_DATA_HOME/swift-gps-facade/workouts.sqlite
        let workout = WorkoutRecord(activityType: .running, start: start, end: end)
        try await store.save(workout)
        try await store.addSamples(heartRate, to: workout)
        let routeBuilder = RouteBuilder(store: store)
        try await routeBuilder.insertRouteData(route)     // [Location], once per batch
        try await routeBuilder.finishRoute(with: workout, metadata: nil)
    }

    // Workout/Session/Engine/SensorReading.swift
    static func distanceSource() -> WorkoutSession.Configuration {
        let configuration = WorkoutSession.Configuration(activityType: .cycling, distanceSource: .automatic)   // the default
        return configuration
    }

    // Workout/Model/SensorDistance.swift
    static func sensorDistance(_ workout: WorkoutRecord) {
        if let sensor = SensorDistance(workout.metadata), let calibrated = sensor.calibratedCircumference {
            print("the wheel measured \(calibrated) m a turn against GPS")
        }
    }

    // Workout/Session/WorkoutSession.swift (indoors); LocationCore/FixTime.swift
    static func indoorSession(_ store: WorkoutStore, _ strap: BluetoothSensor, _ clock: some Clock<Duration>) -> WorkoutSession {
        let time = FixTime(clock: clock)
        let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:05", now: time.now)
        let session = WorkoutSession(store: store, samples: [trainer, strap],
                                     configuration: .init(activityType: .cycling, locationType: .indoor), clock: clock, now: time.now)
        return session
    }

    // LocationCore/FixTime.swift (without a source)
    static func fixTimeWithoutASource(_ clock: some Clock<Duration>) -> BluetoothSensor {
        let time = FixTime(clock: clock)
        let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:05", clock: clock, now: time.now)
        return trainer
    }

    // WorkoutSimulators/TimedSampleSource.swift
    static func timedSampleSource(_ store: WorkoutStore, _ start: Date, _ ride: [QuantitySample]) async throws {
        let clock = VirtualClock()
        let time = FixTime(startingAt: start, clock: clock)
        let trainer = TimedSampleSource(samples: ride, startingAt: start, clock: clock)
        let session = WorkoutSession(store: store, samples: [trainer], configuration: .init(activityType: .cycling),
                                     clock: clock, now: time.now)
        try session.start()
        await clock.advance(by: .seconds(3_600))
    }

    // Workout.docc/WorkoutsWithoutAFix.md
    static func withoutAFixArticle(_ store: WorkoutStore, _ start: Date, _ ride: [QuantitySample]) async throws {
        let clock = ContinuousClock()
        let time = FixTime(clock: clock)                      // the system clock's date, at the clock's pace
        let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:05", clock: clock, now: time.now)
        let strap = BluetoothSensor(address: "C0:FF:EE:00:00:01", clock: clock, now: time.now)
        let session = WorkoutSession(
            store: store, samples: [trainer, strap],
            configuration: .init(activityType: .cycling, locationType: .indoor, autoPause: .defaults(for: .cycling),
                                 autoLapTime: .seconds(600), trainingProfile: TrainingProfile(functionalThresholdPower: 250)),
            clock: clock, now: time.now)
        try session.start()
        _ = try await session.end()
    }

    static func withoutAFixArticleTest(_ start: Date, _ ride: [QuantitySample]) async throws -> WorkoutRecord {
        let clock = VirtualClock()
        let time = FixTime(startingAt: start, clock: clock)
        let trainer = TimedSampleSource(samples: ride, startingAt: start, clock: clock)
        let session = WorkoutSession(store: try WorkoutStore.inMemory(), samples: [trainer],
                                     configuration: .init(activityType: .cycling), clock: clock, now: time.now)
        try session.start()
        await clock.advance(by: .seconds(3_600))
        let workout = try await session.end()
        return workout
    }

    // BluetoothSensors.docc/RecordingWithSensors.md (Workouts without a fix)
    static func readmeIndoors(_ store: WorkoutStore, _ trainer: BluetoothSensor, _ strap: BluetoothSensor, _ clock: some Clock<Duration>) -> WorkoutSession {
        let time = FixTime(clock: clock)                     // the date, at the session's clock's pace
        let session = WorkoutSession(
            store: store, samples: [trainer, strap],          // sensors dated by time.now too
            configuration: .init(activityType: .cycling, locationType: .indoor, autoLapTime: .seconds(600)),
            clock: clock, now: time.now)
        return session
    }

    // Workout/Model/SampleAveraging.swift
    static func sampleAveraging() -> WorkoutSession.Configuration {
        var configuration = WorkoutSession.Configuration(activityType: .cycling)
        configuration.sampleAveraging = .excludingZeros   // cadence and power while pedalling
        return configuration
    }

    // Workout/Model/TrainingProfile.swift
    static func trainingProfile() -> TrainingProfile {
        let profile = TrainingProfile(functionalThresholdPower: 250, maximumHeartRate: 185)
        // Coggan's seven power zones (55 %, 75 %, 90 %, 105 %, 120 %, 150 % of 250 W), five heart-rate
        // zones (60 %, 70 %, 80 %, 90 % of 185 bpm).
        return profile
    }

    // Workout/Model/TrainingFigures.swift
    static func trainingFigures(_ workout: WorkoutRecord, _ samples: [QuantitySample]) -> TrainingSummary {
        var training = TrainingFigures(profile: TrainingProfile(functionalThresholdPower: 250), start: workout.start)
        for sample in samples { training.add(sample) }          // and events, in time order
        training.finish(at: workout.end)
        print(training.summary.normalizedPower ?? 0, training.summary.trainingStressScore ?? 0)
        return training.summary
    }

    // Workout/Store/WorkoutStore+Training.swift
    static func storedTrainingFigures(_ store: WorkoutStore, _ id: UUID) async throws {
        let figures = try await store.trainingFigures(of: id, profile: TrainingProfile(functionalThresholdPower: 250))
        print(figures.normalizedPower ?? 0, figures.trainingStressScore ?? 0)
    }

    // Workout/Model/SampleFigures.swift
    static func sampleFigures(_ samples: [QuantitySample]) -> Double {
        var heartRate: SampleFigures?
        for sample in samples { heartRate.add(sample) }   // in time order
        print(heartRate?.average ?? 0)
        return heartRate?.average ?? 0
    }

    // Workout/Store/WorkoutStore+SaveWorkout.swift
    static func saveWorkout(_ store: WorkoutStore, _ run: WorkoutRecord, _ heartRate: [QuantitySample], _ fixes: [Location]) async throws {
        switch try await store.saveWorkout(run, samples: heartRate, route: fixes) {
        case .saved: print("saved")
        case let .alreadySaved(id, matchedBy): print("already saved as \(id), by \(matchedBy)")
        }
    }

    /// The parser of your own the example reads a long track with, as it parses it.
    struct TrackParser {
        func trackPoints(batchSize: Int) -> AsyncThrowingStream<[Location], any Error> {
            AsyncThrowingStream { $0.finish() }
        }
    }

    // Workout/Store/WorkoutStore+SaveWorkout.swift
    static func saveWorkoutInBatches(
        _ store: WorkoutStore, _ run: WorkoutRecord, _ heartRate: [QuantitySample], _ parser: TrackParser
    ) async throws {
        try await store.saveWorkout(run, samples: heartRate) { route in
            for try await batch in parser.trackPoints(batchSize: 10_000) {
                try await route.insertRouteData(batch)
            }
        }
    }

    // Workout/Store/WorkoutStore+Queries.swift
    static func queries(_ store: WorkoutStore, _ midnight: Date) async throws {
        let today = try await store.workouts(from: midnight, to: midnight + 86_400, activityType: .running)
        _ = today
    }

    // Workout/Route/RouteBatches.swift
    static func routeBatches(_ store: WorkoutStore, _ workout: WorkoutRecord) async throws {
        for try await batch in store.routePoints(of: workout.id) {
            for point in batch { print(point.location) }
        }
    }

    // Workout/Route/RouteBuilder.swift
    static func routeBuilder(_ store: WorkoutStore, _ workout: WorkoutRecord, _ fixes: AsyncStream<[Location]>) async throws {
        let routeBuilder = RouteBuilder(store: store)
        for try await batch in fixes {                     // as many batches as needed
            try await routeBuilder.insertRouteData(batch)
        }
        let route = try await routeBuilder.finishRoute(with: workout, metadata: nil)
        _ = route
    }

    // Workout/Import/GPXImporter.swift
    static func gpxImporter(_ store: WorkoutStore) async throws {
        let report = try await GPXImporter(store: store).importFile(at: "ride.gpx.gz")
        for imported in report.workouts {
            print(imported.isNew ? "imported" : "already imported", imported.workoutID, imported.points)
        }
    }

    // Workout/Import/FIT/FITImporter.swift
    static func fitImporter(_ store: WorkoutStore) async throws {
        let report = try await FITImporter(store: store).importFile(at: "ride.fit")
        for imported in report.workouts {
            print(imported.isNew ? "imported" : "already imported", imported.workoutID, imported.points, imported.laps)
        }
        print(report.read.issues)   // a bad CRC, a file cut off partway: what was imported anyway
    }

    // Workout/Import/TCX/TCXImporter.swift
    static func tcxImporter(_ store: WorkoutStore) async throws {
        let report = try await TCXImporter(store: store).importFile(at: "run.tcx")
        for imported in report.workouts { print(imported.workoutID, imported.points, imported.laps ?? 1) }
    }

    // Workout/Import/WorkoutFileFormat.swift
    static func fileFormat(_ store: WorkoutStore, _ path: String) async throws {
        switch WorkoutFileFormat(contentsOf: path) {
        case .fit: _ = try await FITImporter(store: store).importFile(at: path)
        case .tcx: _ = try await TCXImporter(store: store).importFile(at: path)
        case .gpx, nil: _ = try await GPXImporter(store: store).importFile(at: path)   // nil: GPX's reader says what it is not
        }
    }

    // Workout/Export/WorkoutExportFormat.swift
    static func exportFormat(_ store: WorkoutStore, _ run: WorkoutRecord) async throws {
        let summary = try await store.export(run.id, format: .gpx, toFileAt: "run.gpx")
        _ = summary
    }

    // Workout/Export/WorkoutStore+Export.swift
    static func exportStream(_ store: WorkoutStore, _ id: UUID) async throws -> Data {
        var gpx = Data()
        let summary = try await store.export(id, format: .gpx) { gpx.append(contentsOf: $0) }
        _ = summary
        return gpx
    }

    // Workout/Export/WorkoutPlot.swift
    static func plot(_ store: WorkoutStore, _ run: WorkoutRecord) async throws {
        var plot = WorkoutPlot(workout: run)
        for try await batch in store.routePoints(of: run.id) { plot.add(batch) }
        plot.addHeartRate(try await store.samples(of: run.id, type: .heartRate))
        try plot.svg().write(toFile: "run.svg", atomically: true, encoding: .utf8)
    }

    // Workout/Export/WorkoutPlot.swift
    static func plotSVG(_ store: WorkoutStore, _ run: WorkoutRecord) async throws -> String {
        let svg = try await store.plotSVG(of: run.id)
        return svg
    }

    // Workout/Model/DeviceTotals.swift
    static func deviceTotals(_ workout: WorkoutRecord) {
        if let device = DeviceTotals(workout.metadata), let distance = device.distance {
            print("the device says \(distance) m, the points \(workout.totals.distance ?? 0) m")
        }
    }

    // WorkoutCore/QuantitySample.swift
    static func sample(_ fix: Location) -> QuantitySample {
        let beat = QuantitySample(type: .heartRate, value: 142, at: fix.time!)
        return beat
    }

    // Workout/Model/WorkoutActivityType+FIT.swift, +GPX.swift
    @ExampleValues static func activityTypes() -> [Any] {
        WorkoutActivityType(fitSport: 2)   // .cycling
        WorkoutActivityType(gpxType: "trail_running")   // .running
        WorkoutActivityType.cycling.fitSubSport(indoor: true, virtual: false)   // 6
    }

    // Workout/Model/WorkoutActivityType.swift
    static func activityType() -> WorkoutActivityType? {
        let type = WorkoutActivityType(rawValue: "running")   // .running
        return type
    }

    // Workout/Model/WorkoutRecord.swift
    static func record(_ start: Date, _ end: Date) -> WorkoutRecord {
        let run = WorkoutRecord(
            activityType: .running, start: start, end: end,
            totals: WorkoutTotals(distance: 10_012, energy: 712),
            metadata: WorkoutMetadata(sourceApp: "my-recorder", externalID: "gpx:3f2a..."))
        return run
    }

    // WorkoutCore/SampleSource.swift
    static func sampleSource(_ store: WorkoutStore, _ gps: GPSDClient) {
        final class Strap: SampleSource {
            func start() -> AsyncStream<QuantitySample> { AsyncStream { _ in } }   // a sample per beat interval
            func stop() {}                                                          // ends the stream
        }
        let session = WorkoutSession(store: store, source: gps, samples: [Strap()], configuration: .init(activityType: .running))
        _ = session
    }

    // Workout/Session/WorkoutSession.swift
    static func session(_ store: WorkoutStore, _ show: (WorkoutSession.Statistics) -> Void) async throws {
        let session = WorkoutSession(store: store, source: GPSDClient(host: "127.0.0.1", port: 2947),
                                     configuration: .init(activityType: .running, autoPause: .defaults(for: .running)))
        try session.start()
        for await figures in session.statistics() { show(figures) }   // until the session ends
        let workout = try await session.end()
        _ = workout
    }

    // WorkoutSimulators/FakeHeartRateSensor.swift
    static func fakeHeartRate(_ store: WorkoutStore, _ workout: WorkoutRecord) async throws {
        let route = SyntheticTrack.generate(count: 3_600)
        let heartRate = FakeHeartRateSensor(seed: 7).samples(for: route)
        try await store.addSamples(heartRate, to: workout)
    }

    // WorkoutSimulators/GPXHeartRateReplay.swift
    static func gpxHeartRate(_ store: WorkoutStore) throws {
        let run = try ReplayRecording(contentsOf: URL(fileURLWithPath: "run.gpx")).device(speed: 10)
        let session = WorkoutSession(store: store, source: run,
                                     heartRate: try FakeHeartRateSensor.replay(heartRatesOf: "run.gpx", following: run),
                                     configuration: .init(activityType: .running))
        _ = session
    }

    // WorkoutSimulators/StoreFaults.swift
    static func storeFaults(_ run: WorkoutRecord, _ heartRate: [QuantitySample], _ fixes: [Location]) async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        faults.inject(.beforeWriting(.addSamples))
        await #expect(throws: WorkoutStoreError.self) {
            try await store.saveWorkout(run, samples: heartRate, route: fixes)
        }
        #expect(try await store.workoutCount() == 0)      // nothing of the run remains
    }

    // WorkoutSimulators/SyntheticRun.swift
    static func syntheticRun(_ store: WorkoutStore) async throws {
        let run = SyntheticRun(index: 0, points: 10_800)          // a three-hour run
        try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
    }

    // WorkoutSimulators/FakeBlueZ/FakeBlueZ.swift
    static func fakeBlueZ() async throws {
        let bus = try await PrivateBus()
        let bluez = try await FakeBlueZ(bus: bus.address)
        let strap = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate]))
        let sensor = BluetoothSensor(address: "C0:FF:EE:00:00:01", bus: .address(bus.address))
        strap.send(HeartRateMeasurement(heartRate: 142))   // a notification, once the sensor subscribed
        _ = sensor
    }

    // WorkoutSimulators/FakeBlueZ/FakeBluetoothDevice+Model.swift
    static func ride(_ strap: FakeBluetoothDevice) {
        let riding = strap.ride(seed: 7)
        defer { riding.cancel() }
        _ = riding
    }

    // WorkoutSimulators/FakeBlueZ/FakeBluetoothDevice+Replay.swift
    static func replay(_ url: URL, _ clock: VirtualClock, _ meter: FakeBluetoothDevice) throws {
        let ride = try ReplayRecording(contentsOf: url).device(clock: clock)
        let playing = meter.play(try FakeBluetoothDevice.samples(ofGPX: url.path), following: ride)
        playing.cancel()
    }

    // BluetoothGATT/HeartRateMeasurement.swift
    static func heartRate() throws -> HeartRateMeasurement {
        let measurement = try HeartRateMeasurement(bytes: [0x16, 0x48, 0x00, 0x03])  // 72 bpm, one RR of 0.75 s
        return measurement
    }

    // BluetoothGATT.docc/BluetoothGATT.md
    static func heartRateArticle() throws -> HeartRateMeasurement {
        let measurement = try HeartRateMeasurement(bytes: [0x16, 0x48, 0x00, 0x03])
        // measurement.heartRate == 72, measurement.rrIntervals == [0.75]
        return measurement
    }

    // BluetoothGATT/RevolutionCounter.swift
    @ExampleValues static func revolutions(_ first: RevolutionData, _ second: RevolutionData) -> [Any] {
        var crank = RevolutionCounter(counterBits: 16, eventTimeUnit: 1.0 / 1024)
        crank.add(first, receivedAt: .seconds(0))        // nil: nothing to compare with yet
        crank.add(second, receivedAt: .seconds(1))       // .revolving(rate: 1.5, revolutions: 1.5...)
    }

    // BluetoothSensors/BluetoothSensor.swift
    static func sensor(_ store: WorkoutStore, _ gps: some LocationSource) {
        let strap = BluetoothSensor(address: "C0:FF:EE:00:00:01")
        let session = WorkoutSession(store: store, source: gps, samples: [strap], configuration: .init(activityType: .cycling))
        _ = session
    }

    // BluetoothSensors.docc/BluetoothSensors.md
    static func sensorArticle(_ store: WorkoutStore, _ gps: some LocationSource) {
        let strap = BluetoothSensor(address: "C0:FF:EE:00:00:01")
        let session = WorkoutSession(
            store: store, source: gps, samples: [strap],
            configuration: .init(activityType: .cycling))
        _ = session
    }

    // BluetoothSensors/BlueZ/BlueZ.swift
    static func blueZ() async throws {
        let bluez = try BlueZ()
        for device in try await bluez.scan(for: .seconds(10)) {
            print(device.address, device.name ?? "", device.workoutServices)
        }
    }

    // LocationCore/FixTime.swift
    static func fixTime(_ gps: some LocationSource) {
        let time = FixTime(following: gps)
        let strap = BluetoothSensor(address: "C0:FF:EE:00:00:01", now: time.now)
        _ = strap
    }
}

/// The examples that need nothing outside the process do what their comments say.
@Suite("API reference examples: workouts")
struct WorkoutExampleTests {
    /// A strap at 120 bpm for 10 s, then at 180 for 2 s (each value holds from the sample before
    /// it): the mean weighted by time is 130, where the plain mean of the 13 readings is 129.2.
    @Test func theSampleFiguresExampleWeighsByTime() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let samples = (0...10).map { QuantitySample(type: .heartRate, value: 120, at: start + Double($0)) }
            + [QuantitySample(type: .heartRate, value: 180, at: start + 11), QuantitySample(type: .heartRate, value: 180, at: start + 12)]
        #expect(abs(WorkoutExamples.sampleFigures(samples) - (120.0 * 10 + 180 * 2) / 12) < 1e-9)
    }

    /// The profile's zones are the ones its comment lists, and an hour at the FTP is 100 points.
    @Test func theTrainingExamplesSayWhatTheyDo() {
        let profile = WorkoutExamples.trainingProfile()
        #expect(profile.powerZoneBounds == [137.5, 187.5, 225, 262.5, 300, 375])
        #expect(profile.heartRateZoneBounds.map { $0.map { ($0 * 10).rounded() / 10 } } == [111, 129.5, 148, 166.5])
        #expect(WorkoutExamples.sampleAveraging().metadata.values[SampleAveraging.metadataKey] == "exclude_zeros")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let workout = WorkoutRecord(activityType: .cycling, start: start, end: start + 3_600)
        let samples = (0...3_600).map { QuantitySample(type: .power, value: 250, at: start + Double($0)) }
        let summary = WorkoutExamples.trainingFigures(workout, samples)
        #expect(abs((summary.trainingStressScore ?? 0) - 100) < 1e-9)
    }

    @Test func theValuesAreTheOnesTheExamplesSay() throws {
        #expect(WorkoutExamples.activityTypes().compactMap { $0 as? WorkoutActivityType } == [.cycling, .running])
        #expect(WorkoutExamples.activityType() == .running)
        let measurement = try WorkoutExamples.heartRate()
        #expect(measurement.heartRate == 72 && measurement.rrIntervals == [0.75])
        #expect(try WorkoutExamples.heartRateArticle() == measurement)
    }
}
