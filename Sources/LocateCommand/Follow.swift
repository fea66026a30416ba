import ArgumentParser
import CommandSupport
import CourseFiles
import GPSCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocateOptions
import LocationFacade
import Navigation
import Simulators

struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow a course (GPX, FIT, TCX or GeoJSON): print each event (joined, off course, back on course, wrong way, cues, climbs, finished).",
        discussion: """
            Reads COURSE (a GPX route or track with its waypoints, a FIT course, a TCX course or a \
            GeoJSON LineString); where the file has no cue, turns are computed from its geometry. Then \
            prints one line per event, with --json one object per line: {"event":"off-course",\
            "time":...,"distance_along":...,"distance_to_go":...,"cross_track":...,...}; "cue" events \
            carry the cue's "cue_type", "cue_name", "cue_distance" (metres along the course) and \
            "distance" (metres ahead) and "now"; "progress" objects come every --progress seconds of \
            fix time. Off course when the distance from the course less the fix's accuracy passes \
            --off-course metres for --off-course-fixes fixes; back on within 60 % of it for two \
            fixes; a fix less accurate than --max-accuracy decides nothing. --nmea writes XTE, RMB \
            and APB sentences after each fix instead of the events, for a plotter or an autopilot.

            Exits \(ExitStatus.success.rawValue) at the finish, at the end of a --simulate replay or \
            on SIGINT or SIGTERM, \(ExitStatus.usage.rawValue) on a bad option, \
            \(ExitStatus.noInput.rawValue) when COURSE or the replay cannot be opened, \
            \(ExitStatus.dataError.rawValue) when COURSE is not a course (naming where) or has fewer \
            than two points, \(ExitStatus.unavailable.rawValue) when gpsd or GeoClue cannot be reached.

            \(ExitStatus.table)
            """)

    @Argument(help: "The course: a GPX, FIT, TCX or GeoJSON file.", completion: .file())
    var course: String

    @OptionGroup var serverOptions: ServerOptions

    @OptionGroup var geoClueOptions: GeoClueOptions

    @Option(help: "Take the fixes from a replay of FILE (a gpsd JSON log, an NMEA log or a GPX track) instead of gpsd.", completion: .file())
    var simulate: String?

    @Option(parsing: .unconditional, help: "Play --simulate this many times faster than recorded.")
    var speed: Double = 1

    @Option(help: "Thresholds for a bike, on foot or a boat (off course beyond 50, 25 or 100 m).")
    var profile: Profile = .bike

    @Option(name: .customLong("off-course"), parsing: .unconditional, help: "Metres from the course, less the fix's accuracy, that are off it (default: the profile's).")
    var offCourse: Double?

    @Option(parsing: .unconditional, help: "Consecutive fixes off the course before it is said.")
    var offCourseFixes: Int = 3

    @Option(parsing: .unconditional, help: "A fix claiming a worse accuracy (metres) decides nothing.")
    var maxAccuracy: Double = 50

    @Option(parsing: .unconditional, help: "Print a progress line every this many seconds of fix time (0: never).")
    var progress: Double = 0

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Write NMEA XTE, RMB and APB sentences after each fix instead of the events.")
    var nmea = false

    enum Profile: String, ExpressibleByArgument, CaseIterable {
        case bike, foot, boat
    }

    func validate() throws {
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, not \(speed).") }
        if let offCourse { guard offCourse > 0, offCourse.isFinite else { throw ValidationError("--off-course must be a positive number of metres, not \(offCourse).") } }
        guard offCourseFixes >= 1 else { throw ValidationError("--off-course-fixes must be at least 1, not \(offCourseFixes).") }
        guard maxAccuracy > 0 else { throw ValidationError("--max-accuracy must be a positive number of metres, not \(maxAccuracy).") }
        guard progress >= 0, progress.isFinite else { throw ValidationError("--progress must be zero or more seconds, not \(progress).") }
        if json, nmea { throw ValidationError("Give either --json or --nmea, not both.") }
        if simulate != nil, serverOptions.server != nil {
            throw ValidationError("--simulate replays a file without gpsd: give either a server or --simulate, not both.")
        }
        try geoClueOptions.validate(server: serverOptions.server, simulate: simulate)
    }

    var navigatorConfiguration: NavigatorConfiguration {
        let base: NavigatorConfiguration = switch profile {
        case .bike: .bike
        case .foot: .foot
        case .boat: .boat
        }
        return NavigatorConfiguration(
            offCourseDistance: offCourse ?? base.offCourseDistance, offCourseFixes: offCourseFixes, maximumAccuracy: maxAccuracy,
            cueAnnouncements: base.cueAnnouncements, cueNow: base.cueNow, finishDistance: base.finishDistance)
    }

    func run() async throws {
        // The course first: a bad file ends the command before any source is started.
        let loaded: Course
        do {
            loaded = try CourseFile.read(contentsOf: course)
        } catch {
            Output.error("locate follow: \(error)")
            throw ExitCode(error.isMissingFile ? .noInput : .dataError)
        }
        let (source, replay, name) = try CommandSource.make(
            command: "follow", server: serverOptions, geoClue: geoClueOptions, simulate: simulate, speed: speed)
        let printer = FollowPrinter(json: json)
        let navigator = Locked(Navigator(course: loaded, configuration: navigatorConfiguration))
        let (finishes, finish) = AsyncStream.makeStream(of: Void.self)
        let every = progress
        let lastProgress = Locked<Date?>(nil)
        let nmea = nmea
        let observation = source.addObserver { event in
            let update: NavigationUpdate
            switch event {
            case let .location(fix):
                update = navigator.withLock { $0.update(with: fix) }
            case let .noFix(_, time?):
                update = navigator.withLock { $0.noFix(at: time) }
            default:
                return
            }
            if nmea {
                printer.printSentences(NavigationSentences.sentences(for: update.progress, course: loaded))
            } else {
                for event in update.events { printer.print(event, update.progress) }
                let due = every > 0 && lastProgress.withLock { last in
                    guard last.map({ update.progress.time.timeIntervalSince($0) >= every }) ?? true else { return false }
                    last = update.progress.time
                    return true
                }
                if due { printer.printProgress(update.progress) }
            }
            if update.events.contains(.finished) { finish.yield() }
        }
        let failure = FirstFailure()
        let errors = source.addObserver { event in
            guard case let .error(error) = event else { return }
            switch error {
            case .unreachable, .serviceUnavailable, .notAuthorized:
                failure.set(error)
            default:
                Output.error("locate follow: \(name): \(error)")
            }
        }
        let interrupts = Interrupts()
        source.start()
        let (endings, ending) = AsyncStream.makeStream(of: LocationError?.self)
        let waiters: [Task<Void, Never>] = [
            Task {
                if let replay { await replay.waitUntilFinished() } else { await Task.never() }
                ending.yield(nil)
            },
            Task {
                await interrupts.wait()
                ending.yield(nil)
            },
            Task {
                ending.yield(await failure.wait())
            },
            Task {
                for await _ in finishes {
                    ending.yield(nil)
                    break
                }
            },
        ]
        var outcome: LocationError?
        for await end in endings {
            outcome = end
            break
        }
        waiters.forEach { $0.cancel() }
        finish.finish()
        source.stop()
        observation.cancel()
        errors.cancel()
        printer.drain()
        if let readError = replay?.readError {
            Output.error("locate follow: \(readError)")
            throw ExitCode(.dataError)
        }
        if let outcome {
            Output.error("locate follow: \(outcome)")
            throw ExitCode(outcome.exitStatus)
        }
    }
}

/// The lines `locate follow` prints: one per event (and progress), as text or JSON.
final class FollowPrinter: Sendable {
    private let json: Bool
    private let output = LineWriter()

    init(json: Bool) {
        self.json = json
    }

    func print(_ event: NavigationEvent, _ progress: NavigationProgress) {
        line { buffer in
            if json {
                buffer.append(contentsOf: #"{"event":""#.utf8)
                buffer.append(contentsOf: event.name.utf8)
                buffer.append(UInt8(ascii: "\""))
                appendProgress(progress, to: &buffer)
                switch event {
                case let .cue(point, distance, now):
                    buffer.append(contentsOf: #","cue_type":""#.utf8)
                    buffer.append(contentsOf: point.kind.rawValue.utf8)
                    buffer.append(contentsOf: #"","cue_name":"#.utf8)
                    if let name = point.name { TextBytes.appendJSONString(name, to: &buffer) } else { buffer.append(contentsOf: "null".utf8) }
                    buffer.append(contentsOf: #","cue_distance":"#.utf8)
                    TextBytes.appendFixed(point.distance, decimals: 1, to: &buffer)
                    buffer.append(contentsOf: #","distance":"#.utf8)
                    TextBytes.appendFixed(distance, decimals: 1, to: &buffer)
                    buffer.append(contentsOf: #","now":"#.utf8)
                    buffer.append(contentsOf: (now ? "true" : "false").utf8)
                case let .climbStart(climb), let .climbTop(climb):
                    appendClimb(climb, to: &buffer)
                default:
                    break
                }
                buffer.append(UInt8(ascii: "}"))
            } else {
                var text = "\(RFC3339.string(from: progress.time)) \(event.text)"
                text += " (\(TextBytes.fixed(progress.distanceAlong / 1000, decimals: 2)) km done, \(TextBytes.fixed(progress.distanceToGo / 1000, decimals: 2)) km to go)"
                buffer.append(contentsOf: text.utf8)
            }
        }
    }

    func printProgress(_ progress: NavigationProgress) {
        line { buffer in
            if json {
                buffer.append(contentsOf: #"{"event":"progress""#.utf8)
                appendProgress(progress, to: &buffer)
                buffer.append(UInt8(ascii: "}"))
            } else {
                var text = "\(RFC3339.string(from: progress.time)) progress \(progress.state.rawValue) \(TextBytes.fixed(progress.distanceAlong / 1000, decimals: 2)) km done, \(TextBytes.fixed(progress.distanceToGo / 1000, decimals: 2)) km to go"
                if let cue = progress.nextCue, let distance = progress.distanceToNextCue {
                    text += ", \(cue.name ?? cue.kind.displayName) in \(Int(distance.rounded())) m"
                }
                buffer.append(contentsOf: text.utf8)
            }
        }
    }

    func printSentences(_ sentences: [String]) {
        guard !sentences.isEmpty else { return }
        output.append { buffer in
            for sentence in sentences { buffer.append(contentsOf: sentence.utf8) }
        }
    }

    func drain() { output.drain() }

    private func line(_ body: (inout [UInt8]) -> Void) {
        output.append { buffer in
            body(&buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    private func appendProgress(_ progress: NavigationProgress, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: #","time":""#.utf8)
        RFC3339.append(progress.time, to: &buffer)
        buffer.append(contentsOf: #"","state":""#.utf8)
        buffer.append(contentsOf: progress.state.rawValue.utf8)
        buffer.append(contentsOf: #"","distance_along":"#.utf8)
        TextBytes.appendFixed(progress.distanceAlong, decimals: 1, to: &buffer)
        buffer.append(contentsOf: #","distance_to_go":"#.utf8)
        TextBytes.appendFixed(progress.distanceToGo, decimals: 1, to: &buffer)
        buffer.append(contentsOf: #","cross_track":"#.utf8)
        TextBytes.appendJSONNumber(progress.crossTrack.map { ($0 * 10).rounded() / 10 }, to: &buffer)
        buffer.append(contentsOf: #","wrong_way":"#.utf8)
        buffer.append(contentsOf: (progress.isWrongWay ? "true" : "false").utf8)
        if let cue = progress.nextCue, let distance = progress.distanceToNextCue {
            buffer.append(contentsOf: #","next_cue_type":""#.utf8)
            buffer.append(contentsOf: cue.kind.rawValue.utf8)
            buffer.append(contentsOf: #"","next_cue_distance":"#.utf8)
            TextBytes.appendFixed(distance, decimals: 1, to: &buffer)
        }
        if let left = progress.climbDistanceLeft {
            buffer.append(contentsOf: #","climb_distance_left":"#.utf8)
            TextBytes.appendFixed(left, decimals: 1, to: &buffer)
            buffer.append(contentsOf: #","climb_ascent_left":"#.utf8)
            TextBytes.appendJSONNumber(progress.climbAscentLeft.map { ($0 * 10).rounded() / 10 }, to: &buffer)
        }
        if let eta = progress.estimatedFinish {
            buffer.append(contentsOf: #","eta_finish":""#.utf8)
            RFC3339.append(eta, to: &buffer)
            buffer.append(UInt8(ascii: "\""))
        }
    }

    private func appendClimb(_ climb: Climb, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: #","climb_start":"#.utf8)
        TextBytes.appendFixed(climb.start, decimals: 1, to: &buffer)
        buffer.append(contentsOf: #","climb_length":"#.utf8)
        TextBytes.appendFixed(climb.length, decimals: 1, to: &buffer)
        buffer.append(contentsOf: #","climb_ascent":"#.utf8)
        TextBytes.appendFixed(climb.ascent, decimals: 1, to: &buffer)
        buffer.append(contentsOf: #","climb_grade":"#.utf8)
        TextBytes.appendFixed(climb.grade * 100, decimals: 1, to: &buffer)
        buffer.append(contentsOf: #","climb_category":""#.utf8)
        buffer.append(contentsOf: climb.category.rawValue.utf8)
        buffer.append(UInt8(ascii: "\""))
    }
}
