import Foundation
import GPSCore
import LocationCore
import Navigation
import Synchronization
import Workout

/// The course `workout record --course` follows: each fix (outdoors) or each metre the sensors
/// count (a ride on a trainer: a position that far along the course) goes through a
/// ``Navigator``; its events become lines on standard error, its progress a part of the status
/// line, and the grade where the rider is the trainer's target.
final class CourseGuide: Sendable {
    /// What `--course-profile` chooses among.
    enum Profile: String, CaseIterable, Sendable {
        case bike, foot, boat

        /// The profile an activity rides by: a boat's for rowing and paddling, on foot for
        /// running, walking and hiking, a bike's otherwise.
        init(_ activity: WorkoutActivityType) {
            switch activity {
            case .running, .walking, .hiking: self = .foot
            case .rowing, .paddling: self = .boat
            default: self = .bike
            }
        }

        var configuration: NavigatorConfiguration {
            switch self {
            case .bike: .bike
            case .foot: .foot
            case .boat: .boat
            }
        }
    }

    private struct State {
        var navigator: Navigator
        var progress: NavigationProgress?
        var counts: [String: Int] = [:]
        /// The grade last given to the trainer, percent.
        var gradeSet: Double?
    }

    let course: Course
    /// The name the saved workout keeps: the course's own, else its file's.
    let name: String
    private let state: Mutex<State>

    /// The metadata key the saved workout names its course under.
    static let metadataKey = "course"

    init(course: Course, file: String, profile: Profile) {
        self.course = course
        name = course.name.flatMap { $0.isEmpty ? nil : $0 } ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        state = Mutex(State(navigator: Navigator(course: course, configuration: profile.configuration)))
    }

    /// The lines a fix gives: one per event, `course: cue Left in 300 m (1.20 km done, 8.80 km to go)`.
    func update(with fix: Location) -> [String] {
        record(state.withLock { $0.navigator.update(with: fix) })
    }

    /// The lines a time without a fix gives (the state is unknown until the next fix).
    func noFix(at time: Date) -> [String] {
        record(state.withLock { $0.navigator.noFix(at: time) })
    }

    /// A virtual ride: the rider `distance` metres along the course at `time` (the sensors'
    /// distance), a position there heading along the course. Returns the lines, and the grade
    /// (percent, rounded to a tenth) to set the trainer to when it moved half a percent or more
    /// since the last one set (the first always).
    func advance(toDistance distance: Double, at time: Date, speed: Double?) -> (lines: [String], grade: Double?) {
        let along = min(course.length, max(0, distance))
        let point = course.line.coordinate(atDistance: along)
        let fix = Location(
            latitude: point.latitude, longitude: point.longitude, altitude: course.elevation(atDistance: along),
            horizontalAccuracy: 1, speed: speed, course: course.line.bearing(atDistance: along), time: time, receivedAt: time,
            isSimulated: true)
        let lines = update(with: fix)
        let grade = course.grade(atDistance: along).map { ($0 * 1000).rounded() / 10 }
        let change: Double? = state.withLock { state in
            guard let grade, state.gradeSet.map({ abs($0 - grade) >= 0.5 }) ?? true else { return nil }
            state.gradeSet = grade
            return grade
        }
        return (lines, change)
    }

    /// Whether the course has been ridden to its finish.
    var isFinished: Bool { state.withLock { $0.progress?.state == .finished } }

    /// The status line's part: `course 8.80 km to go, Left in 250 m, climb 800 m (45 m up) left`,
    /// and `OFF COURSE 80 m` or `WRONG WAY` when so.
    var statusPart: String? {
        state.withLock { state in
            guard let progress = state.progress else { return "course: no fix yet" }
            if progress.state == .finished { return "course finished" }
            var parts = ["course \(TextBytes.fixed(progress.distanceToGo / 1000, decimals: 2)) km to go"]
            if let cue = progress.nextCue, let distance = progress.distanceToNextCue {
                parts.append("\(cue.name ?? cue.kind.displayName) in \(Int(distance.rounded())) m")
            }
            if let left = progress.climbDistanceLeft {
                parts.append("climb \(Int(left.rounded())) m" + (progress.climbAscentLeft.map { " (\(Int($0.rounded())) m up)" } ?? "") + " left")
            }
            if progress.state == .offCourse {
                parts.append("OFF COURSE" + (progress.crossTrack.map { " \(Int(abs($0).rounded())) m" } ?? ""))
            }
            if progress.isWrongWay { parts.append("WRONG WAY") }
            return parts.joined(separator: ", ")
        }
    }

    /// The line after the workout's: `Course "Loop": finished (10.00 km).` or
    /// `Course "Loop": 4.20 of 10.00 km, 1 time off course.`
    var summary: String {
        state.withLock { state in
            let length = TextBytes.fixed(course.length / 1000, decimals: 2)
            guard let progress = state.progress else { return "Course \"\(name)\": \(length) km, never joined." }
            var text = "Course \"\(name)\": " + (progress.state == .finished
                ? "finished (\(length) km)"
                : "\(TextBytes.fixed(progress.distanceAlong / 1000, decimals: 2)) of \(length) km")
            if let off = state.counts[NavigationEvent.offCourse.name] { text += ", \(off) time\(off == 1 ? "" : "s") off course" }
            return text + "."
        }
    }

    /// The `--json` object: the course's name and length, how far along it the rider ended,
    /// whether they finished, and how many of each event there were.
    var object: [String: Any] {
        state.withLock { state in
            var object: [String: Any] = [
                "name": name, "length": (course.length * 10).rounded() / 10,
                "finished": state.progress?.state == .finished, "events": state.counts,
            ]
            object["distance_along"] = state.progress.map { ($0.distanceAlong * 10).rounded() / 10 }
            return object
        }
    }

    private func record(_ update: NavigationUpdate) -> [String] {
        state.withLock { state in
            state.progress = update.progress
            for event in update.events { state.counts[event.name, default: 0] += 1 }
        }
        return update.events.map { event in
            "course: \(event.text) (\(TextBytes.fixed(update.progress.distanceAlong / 1000, decimals: 2)) km done, "
                + "\(TextBytes.fixed(update.progress.distanceToGo / 1000, decimals: 2)) km to go)"
        }
    }
}
