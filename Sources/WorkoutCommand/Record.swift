import ArgumentParser
import BluetoothSensors
import CommandSupport
import CourseFiles
import DBus
import Foundation
import GPSCore
import LocationFacade
import Navigation
import Simulators
import Synchronization
import Workout
import WorkoutSimulators
import WorkoutUpload

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a workout from gpsd, from a replay of a recording, or indoors from sensors alone, and save it when it ends.",
        discussion: """
            Records from gpsd, or with --simulate FILE from a replay of FILE (a GPX track, a gpsd JSON \
            log or an NMEA log) at --speed (a GPX file's heart rates with its fixes, unless \
            --heart-rate-simulate is given), or with --indoor from the sensors alone (a trainer, a \
            treadmill, a foot pod: no gpsd; the workout begins when the command starts, dated by the \
            system clock, and its distance is the sensors'), until the recording ends, --duration seconds of session \
            time have passed, or SIGINT or SIGTERM arrives: then the workout is saved in one \
            transaction and summed up (with --json, one object with the keys of `workout show --json`). \
            On a terminal a status line shows the figures, refreshed at most once a second, and keys \
            work: space pauses or resumes, l marks a lap, q ends and saves. Fixes without a time, \
            repeated or rolled-over dates, jumps and inaccurate fixes never end a recording: each kind \
            is handled by a rule and counted, and a line on standard error says how many of each \
            there were (with --json, the key "input"). When the store fails (another program holds \
            it, the disk is full), recording goes on in memory and writing is tried again: a line on \
            standard error says so, and another when the store works again (with --json, the key \
            "store_failures"). Saving waits up to 60 s for a failing store; a second SIGINT or \
            SIGTERM stops the wait. With --sensor ADDRESS (once per sensor; `workout sensors` lists \
            them), heart rate, cadence, power and wheel speed and distance are recorded from \
            Bluetooth LE sensors through BlueZ, dated by the fixes' time: the status line shows \
            them, and a line on standard error says when a sensor connects, is lost (it is \
            connected again, and the gap counted) and comes back. Outdoors, a wheel's distance counts \
            across stretches without a usable fix (--distance-source), and its circumference is \
            calibrated against GPS (a line at the end says what it came to). With --trainer ADDRESS \
            a smart trainer is recorded indoors and driven: held to --target-power or --grade, moved \
            by + and - (and the arrows) on a terminal, the status line showing the target and what \
            the trainer reports; a trainer that refuses control or a target is said on standard \
            error and recording goes on; at the end its brake is let go. With --ftp, the end \
            sums up normalized power, IF and TSS. With --course FILE (GPX, FIT, TCX or GeoJSON) the \
            course is followed: its cues, climbs, off-course and wrong-way warnings and the finish are \
            lines on standard error ("course: cue Left in 300 m (...)"), the distance to go and the \
            next cue are on the status line, and the saved workout names the course (metadata \
            "course"; with --json, the key "course"). Outdoors the fixes place the rider; indoors the \
            sensors' distance does (a virtual ride, exported to FIT as one), and a --trainer is set to the course's grade \
            there (unless --target-power holds it). Exits \
            \(ExitStatus.noInput.rawValue) when the --course file is missing, \
            \(ExitStatus.dataError.rawValue) when it is not a course, \
            \(ExitStatus.unavailable.rawValue) when gpsd cannot be reached, or when --sensor \
            or --trainer is given and BlueZ is not on the bus, has no adapter or its adapter is off, \
            \(ExitStatus.temporaryFailure.rawValue) when no fix arrived (outdoors: nothing is saved), \
            \(ExitStatus.ioError.rawValue) when the store failed and the workout could not be saved: \
            what was written is kept, and `workout recover --end` saves it.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The gpsd to record from.", valueName: "server[:port[:device]]"))
    var server: String?

    @Option(help: "Record from a replay of FILE (GPX, gpsd JSON or NMEA) instead of gpsd.", completion: .file())
    var simulate: String?

    @Option(parsing: .unconditional, help: "Play the --simulate recording this many times faster than it was recorded.")
    var speed: Double = 1

    @Option(help: ArgumentHelp("The activity.", discussion: "Running by default; cycling with --trainer."))
    var activity: WorkoutActivityType?

    @Flag(help: "Pause the workout while standing still (the activity's defaults).")
    var autoPause = false

    @Option(help: ArgumentHelp("Record a simulated heart rate that follows the fixes, from this seed.", valueName: "seed"))
    var heartRateSimulate: UInt64?

    @Option(name: .customLong("sensor"), help: ArgumentHelp(
        "Record from the Bluetooth LE sensor at this address (heart rate, speed and cadence, power); give it once per sensor.",
        valueName: "address"))
    var sensors: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The wheel's circumference in metres, for speed and distance from a wheel sensor.", discussion: """
            Given, it is kept, and the calibration against GPS is only reported; without it, 2.105 m             (a 700x25c tyre) is assumed and calibrated against the stretches of good GPS.
            """, valueName: "metres"))
    var wheelCircumference: Double?

    @Flag(help: "Record indoors (a trainer, a treadmill): no gpsd; the sensors' samples make the workout and their distance its distance.")
    var indoor = false

    @Option(help: ArgumentHelp(
        "Record from the smart trainer (FTMS) at this address and drive it: a ride indoors.", discussion: """
            It is recorded as a --sensor is, and controlled: asked for control, started, and held to \
            --target-power or --grade, which + and the up arrow raise (10 W, 0.5 %) and - and the down \
            arrow lower on a terminal. Without either it is read and left as it is.
            """, valueName: "address"))
    var trainer: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Hold the --trainer at this power (ERG), whatever the cadence.", valueName: "watts"))
    var targetPower: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Have the --trainer ride this grade, in percent (above 0 is uphill).", valueName: "percent"))
    var grade: Double?

    @Option(help: ArgumentHelp("Where the distance comes from when a sensor measures it too.", discussion: """
        gps: the fixes alone; sensor: the sensor alone; automatic (the default): the fixes, and the \
        sensor across every stretch of more than 5 s without a usable fix (a tunnel). Indoors, the sensor.
        """))
    var distanceSource: DistanceSource = .automatic

    @Option(parsing: .unconditional, help: ArgumentHelp("Your functional threshold power, watts: the training figures (IF, TSS, power zones) are measured against it.", valueName: "watts"))
    var ftp: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Your maximum heart rate, beats per minute, for the heart-rate zones.", valueName: "bpm"))
    var maxHeartRate: Double?

    @Option(help: ArgumentHelp("The D-Bus address of the bus BlueZ is on (for --sensor and --trainer).", discussion: "Defaults to the system bus."))
    var bus: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("A lap every this many metres.", valueName: "metres"))
    var autoLap: Double?

    @Option(parsing: .unconditional, help: "End after this many seconds of session time.")
    var duration: Double?

    @Option(help: ArgumentHelp("Follow this course (GPX, FIT, TCX or GeoJSON) while recording.", valueName: "file"), completion: .file())
    var course: String?

    @Option(help: ArgumentHelp("The course's thresholds: bike, foot or boat (off course beyond 50, 25 or 100 m).", discussion: "Default: by the activity (foot for running, walking and hiking, boat for rowing and paddling)."))
    var courseProfile: CourseGuide.Profile?

    @Option(help: ArgumentHelp("Upload the workout there once saved: fittrackee://HOST[:PORT], strava or intervals.", discussion: """
        Queued in the transaction that saves the workout (so a crash cannot lose the upload; \
        `workout recover --end` keeps it queued), then sent at once; a server not reached leaves \
        it in the queue for `workout upload --pending`. The workout is saved whatever the upload \
        does: the exit status is the recording's.
        """, valueName: "destination"))
    var uploadTo: UploadTarget?

    @Option(help: ArgumentHelp("The --upload-to server's credentials file (else the systemd credential named for it), as workout upload reads it.", valueName: "file"), completion: .file())
    var credentials: String?

    @Flag(help: "Print the saved workout as one JSON object.")
    var json = false

    func validate() throws {
        if let uploadTo, uploadTo.credentialsFile(credentials) == nil {
            throw ValidationError("--upload-to needs the server's credentials: give --credentials FILE (or run under systemd with a credential named \(uploadTo.kind.rawValue)).")
        }
        if credentials != nil, uploadTo == nil { throw ValidationError("--credentials is for --upload-to: give --upload-to DESTINATION too.") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, not \(speed).") }
        if let autoLap, !(autoLap > 0 && autoLap.isFinite) { throw ValidationError("--auto-lap must be a positive number of metres, not \(autoLap).") }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be a positive number of seconds, not \(duration).") }
        if simulate != nil, server != nil { throw ValidationError("--simulate records without gpsd: give either a server or --simulate, not both.") }
        if simulate == nil, speed != 1 { throw ValidationError("--speed is for --simulate: gpsd has a pace of its own.") }
        for address in sensors where !Self.isBluetoothAddress(address) {
            throw ValidationError("--sensor takes a Bluetooth address such as C0:FF:EE:00:00:01, not '\(address)'.")
        }
        if let repeated = Dictionary(grouping: sensors, by: { $0.uppercased() }).first(where: { $0.value.count > 1 }) {
            throw ValidationError("--sensor \(repeated.key) is given \(repeated.value.count) times: give each sensor once.")
        }
        if let wheelCircumference, !(wheelCircumference > 0.5 && wheelCircumference < 4) {
            throw ValidationError("--wheel-circumference is in metres, between 0.5 and 4 (a 700x25c tyre: 2.105), not \(wheelCircumference).")
        }
        if indoor, server != nil { throw ValidationError("--indoor records without gpsd: give either a server or --indoor, not both.") }
        if indoor, simulate != nil { throw ValidationError("--indoor records without fixes: --simulate replays fixes; give one or the other.") }
        if isIndoor, heartRateSimulate != nil {
            throw ValidationError("--heart-rate-simulate follows the fixes, and a ride indoors has none: give --sensor for a strap instead.")
        }
        if let ftp, !(ftp > 0 && ftp.isFinite) { throw ValidationError("--ftp must be a positive number of watts, not \(ftp).") }
        if let maxHeartRate, !(maxHeartRate > 0 && maxHeartRate.isFinite) {
            throw ValidationError("--max-heart-rate must be a positive number of beats per minute, not \(maxHeartRate).")
        }
        if let trainer {
            guard Self.isBluetoothAddress(trainer) else {
                throw ValidationError("--trainer takes a Bluetooth address such as C0:FF:EE:00:00:10, not '\(trainer)'.")
            }
            if server != nil || simulate != nil {
                throw ValidationError("--trainer records a ride indoors, without fixes: give no server and no --simulate with it.")
            }
        }
        if targetPower != nil || grade != nil, trainer == nil {
            throw ValidationError("--\(targetPower != nil ? "target-power" : "grade") is a target for a trainer: give --trainer ADDRESS too.")
        }
        if targetPower != nil, grade != nil {
            throw ValidationError("--target-power and --grade are two ways to drive the trainer: give one of them.")
        }
        if let targetPower, !(0...4_000).contains(targetPower) {
            throw ValidationError("--target-power is in watts, from 0 to 4000, not \(targetPower).")
        }
        if let grade, !(grade >= -40 && grade <= 40) {
            throw ValidationError("--grade is in percent, from -40 to 40, not \(grade).")
        }
        if courseProfile != nil, course == nil { throw ValidationError("--course-profile is for a --course: give --course FILE too.") }
        if course != nil, grade != nil {
            throw ValidationError("--grade holds the trainer to one grade, and --course sets it to the course's: give one of them.")
        }
        if sensors.isEmpty, trainer == nil, bus != nil { throw ValidationError("--bus is where BlueZ is, for --sensor: give a --sensor too.") }
        if !sensors.isEmpty, heartRateSimulate != nil {
            throw ValidationError("--heart-rate-simulate makes up heart rates beside the sensors' (a strap's would be doubled): give one or the other.")
        }
    }

    /// `C0:FF:EE:00:00:01`: six hexadecimal pairs joined by colons.
    static func isBluetoothAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    /// Where stopping stands, for the signals that come: the recording goes on (a signal ends
    /// it), it has ended (signals since are counted), or the workout is being saved (a signal
    /// stops the wait for a failing store).
    private enum Stopping: Sendable {
        case recording
        case ended(signalsSince: Int)
        case saving(Task<Result<WorkoutRecord, WorkoutSessionError>, Never>)
    }

    /// Why recording stopped.
    private enum Ending: Sendable {
        case recordingEnded, durationReached, interrupted
        case unreachable(LocationError)
    }

    /// What is recorded: --activity, or cycling for a --trainer and running otherwise.
    private var activityType: WorkoutActivityType { activity ?? (trainer == nil ? .running : .cycling) }

    /// Whether the workout is indoors: --indoor, or a --trainer's ride.
    private var isIndoor: Bool { indoor || trainer != nil }

    /// The target --target-power or --grade holds the trainer to.
    private var trainerTarget: TrainerTarget? { targetPower.map(TrainerTarget.power) ?? grade.map(TrainerTarget.grade) }

    /// How the session records, from the options.
    private func configuration(course: CourseGuide?) -> WorkoutSession.Configuration {
        let profile = ftp == nil && maxHeartRate == nil
            ? nil : TrainingProfile(functionalThresholdPower: ftp, maximumHeartRate: maxHeartRate)
        var metadata = WorkoutMetadata(values: course.map { course in
            // Indoors the course drove the ride: a virtual one (FIT's sub sport 58).
            [CourseGuide.metadataKey: course.name].merging(isIndoor ? [WorkoutMetadata.virtualKey: "true"] : [:]) { $1 }
        } ?? [:])
        metadata.uploadDestinations = uploadTo.map { [$0.name] } ?? []
        return WorkoutSession.Configuration(
            activityType: activityType, locationType: isIndoor ? .indoor : .unknown, distanceSource: distanceSource,
            wheelCircumference: wheelCircumference.map { .given($0) } ?? .calibrated(assumed: 2.105),
            autoPause: autoPause ? .defaults(for: activityType) : nil, autoLapDistance: autoLap,
            metadata: metadata, trainingProfile: profile)
    }

    func run() async throws {
        // The course first: a bad file ends the command before anything starts.
        let guide = try course.map(loadCourse)
        let configuration = configuration(course: guide)
        let store = try storeOptions.open()
        // The credentials too: unreadable ones are said before the ride, not after it.
        let destination = try uploadTo.map { target in
            try target.destination(given: credentials, store: store, format: nil, command: "workout record")
        }
        let (source, format) = isIndoor ? (nil, nil) : try makeSource()
        // Dated by the fixes' time, as the fixes are: a replay's recorded dates, or the GPS's
        // time where the system clock is not set yet; indoors by the system clock.
        let time = source.map { FixTime(following: $0, rate: simulate == nil ? 1 : speed) } ?? FixTime()
        let sensors = try await bluetoothSensors(datedBy: time)
        let simulated = sensors.isEmpty ? try source.flatMap { try heartRate(following: $0, recordedIn: format) } : nil
        let status = StatusLine(enabled: isatty(STDERR_FILENO) == 1)
        let driver = trainer.flatMap { address in sensors.first { $0.sensor.configuration.address == address.uppercased() } }.map { trainer in
            TrainerDriver(sensor: trainer.sensor, target: trainerTarget) { line in status.say(["workout record: " + line]) }
        }
        let say: @Sendable ([String]) -> Void = { lines in status.say(lines.map { "workout record: " + $0 }) }
        // The trainer's samples go through its driver, which notes what it reports for the status line.
        let read: [any SampleSource] = sensors.map { sensor in
            if let driver, driver.sensor === sensor.sensor { return driver.samples }
            return sensor.sensor
        }
        let samples = read + (simulated.map { [$0] } ?? [])
        let session = source.map { WorkoutSession(store: store, source: $0, samples: samples, configuration: configuration) }
            ?? WorkoutSession(store: store, samples: samples, configuration: configuration, now: time.now)
        let (endings, ending) = AsyncStream.makeStream(of: Ending.self)
        let report = RecordingReport()
        // gpsd that cannot be reached before a fix came ends the recording with 69.
        let sawFix = Mutex(false)
        let observation = source?.addObserver { event in
            switch event {
            case let .location(fix):
                sawFix.withLock { $0 = true }
                if let guide { say(guide.update(with: fix)) }
            case let .noFix(_, time?):
                if let guide { say(guide.noFix(at: time)) }
            case let .error(error):
                if case .unreachable = error, !sawFix.withLock({ $0 }) { ending.yield(.unreachable(error)) }
                if case let .malformedData(excerpt, reason) = error, report.countMalformedLine() == 1 {
                    status.say(["workout record: dropped a line from the source that is not a report (\(reason)): \(excerpt)"])
                }
            default: break
            }
        }
        defer { observation?.cancel() }
        let figures = session.statistics(buffering: .newest(64))
        let interrupts = Interrupts()
        try session.start()
        let driving = driver.map { driver in Task { await driver.run() } }
        let terminal = TerminalKeys()
        defer { terminal?.restore() }
        let keys = terminal.map { terminal in
            Task {
                var targetKeys = TargetKeys()
                for await key in terminal.keys() {
                    let wasInsideEscape = targetKeys.isInsideEscape
                    if let steps = targetKeys.read(key) {
                        driver?.move(by: steps)
                        continue
                    }
                    if wasInsideEscape || targetKeys.isInsideEscape { continue }  // an arrow's bytes are not keys of their own
                    switch key {
                    case UInt8(ascii: "q"), UInt8(ascii: "Q"): ending.yield(.interrupted)
                    default: if let refused = SessionKeys.press(key, on: session) { say([refused]) }
                    }
                }
            }
        }
        let watcher = Task { [duration, isIndoor, targetPower] in
            for await current in figures {
                if let line = report.storage(current.storage) { status.say(["workout record: " + line]) }
                // Indoors the sensors' distance places the rider on the course (a virtual ride),
                // and the trainer rides its grade there.
                if let guide, isIndoor, current.state == .running {
                    let (lines, grade) = guide.advance(toDistance: current.distance, at: time.now(), speed: current.samples[.speed]?.latest)
                    say(lines)
                    if let grade, targetPower == nil { driver?.set(.grade(grade)) }
                }
                status.show(current, trainer: driver?.statusPart, course: guide?.statusPart)
                if let duration, current.elapsedTime >= duration { ending.yield(.durationReached) }
            }
        }
        let sensorReports = sensors.map { sensor in
            Task {
                for await sensorStatus in sensor.sensor.statusUpdates() {
                    if let line = sensor.report.line(for: sensorStatus) { status.say(["workout record: " + line]) }
                }
            }
        }
        let replayEnded = (source as? ReplayLocationSource).map { replay in
            Task {
                await replay.waitUntilFinished()
                if replay.hasPlayedToEnd { ending.yield(.recordingEnded) }
            }
        }
        // The first signal ends the recording; one that comes after it, before or while the
        // workout is saved, stops the wait for a failing store.
        let stopping = Mutex(Stopping.recording)
        let signals = Task {
            while !Task.isCancelled {
                await interrupts.wait()
                if Task.isCancelled { return }
                let saving: Task<Result<WorkoutRecord, WorkoutSessionError>, Never>? = stopping.withLock { stopping in
                    switch stopping {
                    case .recording:
                        ending.yield(.interrupted)
                        return nil
                    case let .ended(signals):
                        stopping = .ended(signalsSince: signals + 1)
                        return nil
                    case let .saving(task):
                        return task
                    }
                }
                saving?.cancel()
            }
        }
        defer {
            watcher.cancel()
            replayEnded?.cancel()
            signals.cancel()
            keys?.cancel()
            driving?.cancel()
            sensorReports.forEach { $0.cancel() }
        }
        var reason: Ending = .interrupted
        for await first in endings {
            reason = first
            break
        }
        stopping.withLock { $0 = .ended(signalsSince: 0) }
        driving?.cancel()
        await driver?.finish()
        status.clear()
        if case let .unreachable(error) = reason {
            try? await session.discard()  // it recorded nothing: a session left behind holds nothing to lose
            Output.error("workout record: \(error)")
            throw ExitCode(.unavailable)
        }
        let saving = Task { () -> Result<WorkoutRecord, WorkoutSessionError> in
            do throws(WorkoutSessionError) { return .success(try await session.end()) } catch { return .failure(error) }
        }
        let signalledMeanwhile = stopping.withLock { stopping in
            defer { stopping = .saving(saving) }
            if case let .ended(signals) = stopping { return signals > 0 }
            return false
        }
        if signalledMeanwhile { saving.cancel() }
        let saved = await saving.value
        let final = session.currentStatistics
        if let line = report.storage(final.storage) { Output.error("workout record: " + line) }
        for (issue, count) in final.inputIssues.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where count > 0 {
            Output.error("workout record: \(count) \(issue.description).")
        }
        if report.malformedLines > 1 {
            Output.error("workout record: dropped \(report.malformedLines) lines from the source that were not reports.")
        }
        for sensor in sensors {
            Output.error("workout record: " + sensor.report.summary(of: sensor.sensor.status))
        }
        let workout: WorkoutRecord
        switch saved {
        case let .success(recorded):
            workout = recorded
        case .failure(.nothingRecorded):
            let dropped = final.rejectedFixes.values.reduce(0, +)
            let message = dropped > 0
                ? "none of the \(dropped) fixes that came could be recorded (above, why); nothing was saved."
                : "no fix arrived; nothing was saved."
            Output.error("workout record: " + message)
            if json {
                Output.line(Format.jsonLine([
                    "saved": false, "error": message, "input": report.inputObject(final.inputIssues),
                    "store_failures": report.failuresObject(), "malformed_lines": report.malformedLines,
                ]))
            }
            throw ExitCode(.temporaryFailure)
        case let .failure(error):
            let place = store.path.map { " --store \($0)" } ?? ""
            var unwritten = 0
            if case let .notSaved(storeError, waited, held) = error {
                unwritten = held
                Output.error("workout record: the workout could not be saved (tried for \(Format.duration(Double(waited.components.seconds)))): \(storeError)")
                if held > 0 {
                    Output.error("workout record: \(held) \(held == 1 ? "point or sample it could not write is" : "points and samples it could not write are") lost as it exits.")
                }
            } else {
                Output.error("workout record: \(error)")
            }
            Output.error("workout record: the workout was not saved; what was written is kept: `workout recover --end\(place)` saves it.")
            if json {
                Output.line(Format.jsonLine([
                    "saved": false, "id": session.id.uuidString, "error": "\(error)", "unwritten": unwritten,
                    "recover": "workout recover --end\(place)", "input": report.inputObject(final.inputIssues),
                    "store_failures": report.failuresObject(),
                ]))
            }
            throw ExitCode(.ioError)
        }
        var upload: [String: Any]?
        if let destination { upload = try await self.upload(workout, to: destination, in: store) }
        if json {
            var object = try await Show.object(workout, in: store)
            object["upload"] = upload
            object["input"] = report.inputObject(final.inputIssues)
            object["store_failures"] = report.failuresObject()
            object["malformed_lines"] = report.malformedLines
            if !sensors.isEmpty { object["sensors"] = sensors.map { SensorReport.object(of: $0.sensor.status) } }
            object["trainer"] = driver?.object
            object["course"] = guide?.object
            Output.line(Format.jsonLine(object))
            return
        }
        let events = try await storeCall { try await store.events(of: workout.id) }
        let pauses = events.filter { $0.kind == .pause }.count
        let stops = events.filter { $0.kind == .motionPaused }.count
        let laps = try await storeCall { try await store.laps(of: workout.id) }.count
        Output.line("Recorded \(workout.id.uuidString) (\(workout.activityType)\(workout.metadata.isIndoor == true ? ", indoors" : "")): "
            + "\(Format.distance(workout.totals.distance)), "
            + "duration \(Format.duration(workout.duration)) (moving \(Format.duration(workout.movingTime))), "
            + "\(pauses) pause\(pauses == 1 ? "" : "s"), \(stops) stop\(stops == 1 ? "" : "s"), \(laps) lap\(laps == 1 ? "" : "s").")
        if let guide { Output.line(guide.summary) }
        if let line = Self.calibrationLine(workout.metadata) { Output.error("workout record: " + line) }
        let training = try await storeCall { try await store.trainingFigures(of: workout.id) }
        if let normalized = training.normalizedPower {
            var parts = ["normalized power \(Int(normalized.rounded())) W"]
            if let intensity = training.intensityFactor { parts.append(String(format: "IF %.2f", intensity)) }
            if let stress = training.trainingStressScore { parts.append("TSS \(Int(stress.rounded()))") }
            if let work = training.work { parts.append("work \(Int(work.rounded())) kJ") }
            Output.line("Training: " + parts.joined(separator: ", ") + ".")
        }
    }

    /// Sends the saved workout, queued for `destination` as it was saved, and says what became of
    /// it on standard error; returns that for --json (`destination`, `state`, and the page or the
    /// error). Whatever the upload does, the workout stays saved and queued.
    private func upload(_ workout: WorkoutRecord, to destination: any WorkoutUploadDestination, in store: WorkoutStore) async throws -> [String: Any] {
        let report = try await storeCall { try await WorkoutUploader(store: store, destination: destination).run(only: [workout.id]) }
        var object: [String: Any] = ["destination": destination.name]
        if let done = report.done.first {
            object["state"] = done.state.rawValue
            object["remote_url"] = done.remoteURL ?? done.remoteID
            Output.error("workout record: uploaded to \(destination.name): \(done.remoteURL ?? done.remoteID ?? "")")
        } else if let refused = report.refused.first {
            object["state"] = refused.state.rawValue
            object["error"] = refused.lastError
            Output.error("workout record: \(destination.name) refused the workout: \(refused.lastError ?? "no reason given")")
        } else {
            let entry = report.waiting.first
            let reason = report.credentialsRefused ?? entry?.lastError ?? "not sent"
            object["state"] = entry?.state.rawValue ?? WorkoutUpload.State.pending.rawValue
            object["error"] = reason
            Output.error("workout record: not uploaded yet (\(reason)); it stays queued: `workout upload --pending --to \(destination.name)` sends it.")
        }
        return object
    }

    /// The --course `file`, to follow as the profile has it; exit 66 when it is missing, 65 when
    /// it is not a course.
    private func loadCourse(_ file: String) throws -> CourseGuide {
        do throws(CourseFileError) {
            return CourseGuide(course: try CourseFile.read(contentsOf: file), file: file, profile: courseProfile ?? CourseGuide.Profile(activityType))
        } catch {
            Output.error("workout record: \(error)")
            throw ExitCode(error.isMissingFile ? .noInput : .dataError)
        }
    }

    /// What the wheel's calibration against GPS came to, as the saved workout says, if anything.
    static func calibrationLine(_ metadata: WorkoutMetadata) -> String? {
        guard let sensor = SensorDistance(metadata), let circumference = sensor.circumference else { return nil }
        let assumed = String(format: "%.3f m", circumference)
        guard let calibrated = sensor.calibratedCircumference, let over = sensor.calibrationDistance else {
            return "the wheel's circumference (\(assumed) \(sensor.circumferenceIsGiven ? "given" : "assumed")) could not be calibrated: "
                + "less than 200 m of good GPS beside it."
        }
        let measured = String(format: "%.3f m", calibrated)
        return sensor.circumferenceIsGiven
            ? "against \(Format.distance(over)) of GPS the wheel measured \(measured) a turn; \(assumed) was given and kept."
            : "against \(Format.distance(over)) of GPS the wheel measured \(measured) a turn (\(assumed) assumed): its distance was counted with \(measured)."
    }

    private func makeSource() throws -> (any LocationSource, ReplayRecording.Format?) {
        if let simulate {
            let recording: ReplayRecording
            do {
                recording = try ReplayRecording(contentsOf: URL(fileURLWithPath: simulate))
            } catch {
                Output.error("workout record: \(error)")
                throw ExitCode(FileManager.default.fileExists(atPath: simulate) ? .dataError : .noInput)
            }
            return (recording.device(speed: speed), recording.format)
        }
        let address: GPSDAddress
        do {
            address = try GPSDAddress(parsing: server ?? "")
        } catch {
            throw ValidationError(error.description)
        }
        return (GPSDClient(host: address.host, port: address.port, device: address.device), nil)
    }

    /// The Bluetooth sensors of --sensor, dated by `time`, once BlueZ is found with a powered
    /// adapter (else exit 69, saying what is missing).
    private func bluetoothSensors(datedBy time: FixTime) async throws -> [(sensor: BluetoothSensor, report: SensorReport)] {
        let addresses = sensors + (trainer.map { trainer in sensors.contains { $0.uppercased() == trainer.uppercased() } ? [] : [trainer] } ?? [])
        guard !addresses.isEmpty else { return [] }
        let address = bus.map(DBusConnection.Address.address) ?? .system
        do {
            let bluez = try BlueZ(bus: address)
            defer { bluez.close() }
            _ = try await bluez.poweredAdapter()
        } catch let error as BluetoothError {
            Output.error("workout record: \(error)")
            throw ExitCode(.unavailable)
        } catch let error as DBusError {
            Output.error("workout record: BlueZ did not answer on \(error.bus): \(error.message)")
            throw ExitCode(.unavailable)
        }
        return addresses.map { sensorAddress in
            let sensor = BluetoothSensor(
                address: sensorAddress, bus: address, wheelCircumference: wheelCircumference ?? 2.105, now: { time.now() })
            return (sensor, SensorReport(address: sensor.configuration.address))
        }
    }

    /// The simulated heart rate: --heart-rate-simulate's, or else the heart rates of a GPX file
    /// replayed (none when it has none).
    private func heartRate(following source: any LocationSource, recordedIn format: ReplayRecording.Format?) throws -> (any SampleSource)? {
        if let heartRateSimulate { return FakeHeartRateSensor(seed: heartRateSimulate).live(following: source) }
        guard let simulate, format == .gpx else { return nil }
        do {
            let replay = try FakeHeartRateSensor.replay(heartRatesOf: simulate, following: source)
            return replay.sampleCount > 0 ? replay : nil
        } catch {
            Output.error("workout record: \(error)")
            throw ExitCode(.dataError)
        }
    }
}

/// What a recording met on the way, for the lines on standard error and the JSON object: the
/// store's failures (when each began and ended) and the lines from the source that were not reports.
private final class RecordingReport: Sendable {
    private struct State {
        var failing: (since: Date, error: String)?
        var failures: [(from: Date, to: Date?, error: String)] = []
        var malformedLines = 0
    }

    private let state = Mutex(State())

    /// Counts a line that was not a report; returns how many so far.
    func countMalformedLine() -> Int {
        state.withLock { state in
            state.malformedLines += 1
            return state.malformedLines
        }
    }

    var malformedLines: Int { state.withLock { $0.malformedLines } }

    /// The line to print when the store starts failing or works again, or `nil`.
    func storage(_ storage: WorkoutSession.StorageState) -> String? {
        state.withLock { state in
            switch (storage, state.failing) {
            case let (.retrying(since, _, error), nil), let (.failing(since, _, error), nil):
                state.failing = (since, "\(error)")
                state.failures.append((since, nil, "\(error)"))
                return "the workout store is failing (\(error)); recording goes on in memory and writing is tried again."
            case let (.ok, failing?):
                state.failing = nil
                let now = Date()
                state.failures[state.failures.count - 1].to = now
                return "the workout store works again after \(Format.duration(now.timeIntervalSince(failing.since))); everything held is written."
            default:
                return nil
            }
        }
    }

    func inputObject(_ issues: [InputIssue: Int]) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: issues.filter { $0.value > 0 }.map { ($0.key.rawValue, $0.value as Any) })
    }

    func failuresObject() -> [[String: Any]] {
        state.withLock { state in
            state.failures.map { failure in
                ["from": Format.dateTime(failure.from), "to": failure.to.map(Format.dateTime) as Any? ?? NSNull(), "error": failure.error]
            }
        }
    }
}

/// The figures on one line of a terminal, rewritten at most once a second.
private final class StatusLine: Sendable {
    private let enabled: Bool
    /// When the line was last shown; held while writing, so that a line said from another task
    /// (a sensor's, the trainer's, the course's) never lands between a clear and its text or in
    /// the middle of the status line.
    private let lastShown = Mutex<ContinuousClock.Instant?>(nil)

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func show(_ figures: WorkoutSession.Statistics, trainer: String? = nil, course: String? = nil) {
        guard enabled else { return }
        let now = ContinuousClock.now
        lastShown.withLock { last in
            guard last.map({ now - $0 >= .seconds(1) }) ?? true else { return }
            last = now
            let state = figures.isMotionPaused ? "auto-paused" : figures.state.rawValue
            let pace = figures.averagePace.map { Format.duration($0) + "/km" } ?? "-"
            let heartRate = figures.heartRate.map { "  \(Int($0.rounded())) bpm" } ?? ""
            let cadence = figures.samples[.cadence].map { "  \(Int($0.latest.rounded())) rpm" } ?? ""
            let power = figures.samples[.power].map { "  \(Int($0.latest.rounded())) W" } ?? ""
            var line = "\r\u{1B}[K\(state)  duration \(Format.duration(figures.duration)) (moving \(Format.duration(figures.movingTime)))  "
            line += "\(Format.distance(figures.distance))  \(pace)\(heartRate)\(cadence)\(power)  lap \(figures.lap)"
            for part in [trainer, course].compactMap({ $0 }) { line += "  " + part }
            Output.errorText(line)
        }
    }

    /// Writes `lines` on standard error, each on a line of its own, the status line cleared first
    /// (the next ``show(_:trainer:course:)`` puts it back).
    func say(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        lastShown.withLock { _ in Output.errorText((enabled ? "\r\u{1B}[K" : "") + lines.map { $0 + "\n" }.joined()) }
    }

    func clear() {
        if enabled { lastShown.withLock { _ in Output.errorText("\r\u{1B}[K") } }
    }
}

/// Keys read from the terminal on standard input, one at a time, without echo (Ctrl-C still
/// interrupts); the terminal is put back as it was by ``restore()``. `nil` when standard input is
/// not a terminal.
private final class TerminalKeys: Sendable {
    private let saved: termios

    init?() {
        var settings = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        saved = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// The keys as they are pressed, read on a thread of their own (a blocking read).
    func keys() -> AsyncStream<UInt8> {
        let (keys, key) = AsyncStream.makeStream(of: UInt8.self)
        Threads.detach {
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 { key.yield(byte) }
            key.finish()
        }
        return keys
    }

    func restore() {
        var settings = saved
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}

extension CourseGuide.Profile: ExpressibleByArgument {}

/// What the keys do to the session while `workout record` records: space pauses or resumes, `l`
/// ends a lap. A press the session refuses (while the workout is being saved, say) is said, not
/// ignored: the rider would otherwise think the workout paused.
enum SessionKeys {
    /// Does what `key` asks of `session`; returns the session's refusal in words, or `nil` when it
    /// did it or `key` is none of these.
    static func press(_ key: UInt8, on session: WorkoutSession) -> String? {
        do throws(WorkoutSessionError) {
            switch key {
            case UInt8(ascii: " "): if session.state == .paused { try session.resume() } else { try session.pause() }
            case UInt8(ascii: "l"), UInt8(ascii: "L"): try session.lap()
            default: break
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}
