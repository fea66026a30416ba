import ArgumentParser
import CommandSupport
import CourseFiles
import FIT
import Foundation
import Geometry
import Navigation
import Workout

/// `workout export --course`: a course to follow, from a course file (another format) or from a
/// recorded workout's route ("ride it again").
extension Export {
    /// The course formats `--course` writes, from `--format`.
    var courseFormat: CourseExportFormat? {
        switch format {
        case .fit: .fit
        case .gpx: .gpx
        case .geojson, .tcx: nil
        }
    }

    /// Whether the argument names a course file rather than a workout: a file that exists, or a
    /// name with a `/` or an extension (a workout id has neither).
    static func namesFile(_ argument: String) -> Bool {
        FileManager.default.fileExists(atPath: argument) || argument.contains("/") || argument.contains(".")
    }

    func runCourse() async throws {
        guard let courseFormat else { throw ExitCode(.usage) }
        let course: Course
        var sport = FITSport.generic
        if Self.namesFile(id) {
            do {
                course = try CourseFile.read(contentsOf: id)
            } catch {
                Output.error("workout export: \(error)")
                throw ExitCode(error.isMissingFile ? .noInput : .dataError)
            }
        } else {
            let store = try storeOptions.open()
            let workout = try await storeOptions.resolve(id, in: store)
            sport = FITSport(rawValue: workout.activityType.fitSport) ?? .generic
            course = try await Self.recordedCourse(workout, in: store)
        }
        let options = CourseFITOptions(sport: sport)
        if let output {
            do {
                try CourseFile.write(course, as: courseFormat, toFileAt: output, fit: options)
            } catch {
                Output.error("workout export: \(error)")
                throw ExitCode(.cannotCreate)
            }
        } else {
            Output.write(CourseFile.data(of: course, as: courseFormat, fit: options))
        }
        func counted(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        let cues = course.cues.count, others = course.points.count - cues
        Output.error(
            "Wrote a course of \(counted(course.line.points.count, "point", "points")), \(Format.distance(course.length)), with "
                + "\(counted(cues, "cue", "cues")) and \(counted(others, "point of interest", "points of interest"))"
                + (output.map { " to \($0)." } ?? "."))
    }

    /// The course along a recorded workout's route: its positions and altitudes, in order, with
    /// turns computed from them.
    static func recordedCourse(_ workout: WorkoutRecord, in store: WorkoutStore) async throws -> Course {
        var positions: [GeoCoordinate] = []
        var elevations: [Double?] = []
        for try await batch in store.routePoints(of: workout.id) {
            for point in batch {
                positions.append(GeoCoordinate(latitude: point.location.latitude, longitude: point.location.longitude))
                elevations.append(point.location.altitude)
            }
        }
        let name = String(Format.dateTime(workout.start).prefix(16))
        do {
            return try Course(name: name, positions: positions, elevations: elevations.contains { $0 != nil } ? elevations : [])
        } catch {
            let what = positions.isEmpty ? "has no route (recorded indoors, or without fixes)" : "has a route of \(positions.count) point"
            Output.error("workout export: workout \(workout.id.uuidString) \(what), so there is no course to ride again: \(error)")
            throw ExitCode(.dataError)
        }
    }
}
