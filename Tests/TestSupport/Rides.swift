import Foundation
import Geometry
import LocationCore
import Navigation
import SimulatorsCore

/// Courses and rides laid out in metres on a plane near 50° N, with the truth of each fix: where
/// the rider is and how far along the course (nil off it). Jitter is seeded, so every run is the same.
package struct Plane {
    package static let origin = GeoCoordinate(latitude: 50, longitude: 8)
    package static let metresPerDegree = Geodesy.meanEarthRadius * .pi / 180

    package static func coordinate(_ x: Double, _ y: Double) -> GeoCoordinate {
        GeoCoordinate(
            latitude: origin.latitude + y / metresPerDegree,
            longitude: origin.longitude + x / (metresPerDegree * cos(origin.latitude * .pi / 180)))
    }

    /// The corners `(x, y)` with a point every `step` metres between them.
    package static func path(_ corners: [(Double, Double)], step: Double = 10) -> [GeoCoordinate] {
        var points = [coordinate(corners[0].0, corners[0].1)]
        for (a, b) in zip(corners, corners.dropFirst()) {
            let length = hypot(b.0 - a.0, b.1 - a.1)
            let count = max(1, Int((length / step).rounded()))
            for index in 1...count {
                let t = Double(index) / Double(count)
                points.append(coordinate(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t))
            }
        }
        return points
    }
}

extension SeededRandom {
    /// A normal deviate (Box–Muller) from two uniform ones.
    mutating func normal() -> Double {
        let u = max(uniform(0, 1), 1e-12), v = uniform(0, 1)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// One fix of a ride and its truth.
package struct RideFix {
    package var location: Location
    /// Where the rider truly is.
    package var truth: GeoCoordinate
    /// Metres along the course the rider truly is, nil while off it.
    package var truthAlong: Double?
}

/// A ride: legs along the course (forwards or backwards) or off it, at a speed, a fix a second.
package struct Ride {
    package enum Leg {
        /// Along the course from one distance to another (backwards when `to` < `from`).
        case course(from: Double, to: Double)
        /// Off the course, through these plane points (from wherever the rider is).
        case free([(Double, Double)])
        /// Along the course, with no fix for `seconds` (a tunnel) from `from` to `to`.
        case tunnel(from: Double, to: Double, seconds: Double)
        /// One fix `metres` north of the rider claiming `accuracy` (a spike), then on as before.
        case spike(metres: Double, accuracy: Double)
    }

    package var course: Course
    package var legs: [Leg]
    package var speed = 8.0
    /// Metres of jitter: each axis Gaussian with a third of it as σ, clamped to it.
    package var jitter = 5.0
    package var accuracy = 5.0
    package var seed: UInt64 = 1
    package var start = Date(timeIntervalSince1970: 1_800_000_000)

    package init(course: Course, legs: [Leg]) {
        self.course = course
        self.legs = legs
    }

    package func fixes() -> [RideFix] {
        var random = SeededRandom(seed: seed)
        var fixes: [RideFix] = []
        var time = start
        var position = course.line.coordinate(atDistance: 0)
        var heading = course.line.bearing(atDistance: 0)
        func emit(_ truth: GeoCoordinate, along: Double?, heading: Double, accuracy: Double? = nil, offset: (Double, Double) = (0, 0)) {
            var dx = min(jitter, max(-jitter, random.normal() * jitter / 3))
            var dy = min(jitter, max(-jitter, random.normal() * jitter / 3))
            dx += offset.0
            dy += offset.1
            let measured = GeoCoordinate(
                latitude: truth.latitude + dy / Plane.metresPerDegree,
                longitude: truth.longitude + dx / (Plane.metresPerDegree * cos(truth.latitude * .pi / 180)))
            let course = (heading + random.normal() * 3 + 360).truncatingRemainder(dividingBy: 360)
            fixes.append(RideFix(
                location: Location(
                    latitude: measured.latitude, longitude: measured.longitude, horizontalAccuracy: accuracy ?? self.accuracy,
                    speed: speed + random.normal() * 0.2, course: course, time: time, receivedAt: time),
                truth: truth, truthAlong: along))
            time = time.addingTimeInterval(1)
        }
        for leg in legs {
            switch leg {
            case let .course(from, to), let .tunnel(from, to, _):
                let direction = to >= from ? 1.0 : -1.0
                var along = from
                var silentUntil = time
                if case let .tunnel(_, _, seconds) = leg { silentUntil = time.addingTimeInterval(seconds) }
                while direction * (to - along) > 0 {
                    position = course.line.coordinate(atDistance: along)
                    heading = course.line.bearing(atDistance: along) + (direction < 0 ? 180 : 0)
                    if time >= silentUntil {
                        emit(position, along: along, heading: heading)
                    } else {
                        time = time.addingTimeInterval(1)
                    }
                    along += direction * speed
                }
            case .free(let corners):
                for corner in corners {
                    let target = Plane.coordinate(corner.0, corner.1)
                    let length = position.distance(to: target)
                    let steps = max(1, Int((length / speed).rounded()))
                    let start = position
                    heading = start.bearing(to: target)
                    for step in 1...steps {
                        let t = Double(step) / Double(steps)
                        let truth = GeoCoordinate(
                            latitude: start.latitude + (target.latitude - start.latitude) * t,
                            longitude: start.longitude + (target.longitude - start.longitude) * t)
                        position = truth
                        emit(truth, along: nil, heading: heading)
                    }
                }
            case let .spike(metres, accuracy):
                let along = fixes.last?.truthAlong
                emit(position, along: along, heading: heading, accuracy: accuracy, offset: (0, metres))
            }
        }
        return fixes
    }
}

/// What a navigator said of a ride: each event with the fix it came at.
package struct Narration {
    package var events: [(event: NavigationEvent, fix: RideFix, progress: NavigationProgress)] = []
    package var progress: [(fix: RideFix, progress: NavigationProgress)] = []

    package init(course: Course, ride: [RideFix], configuration: NavigatorConfiguration = .bike) {
        var navigator = Navigator(course: course, configuration: configuration)
        for fix in ride {
            let update = navigator.update(with: fix.location)
            for event in update.events { events.append((event, fix, update.progress)) }
            progress.append((fix, update.progress))
        }
    }

    /// The events as words: `joined`, `cue right 300`, `cue right now`, `off-course`, ...
    package var words: [String] {
        events.map { entry in
            switch entry.event {
            case let .cue(point, distance, now):
                // The announcement it is: the nearest of 300 and 100 m at or beyond its distance.
                "cue \(point.kind.rawValue) \(now ? "now" : distance <= 100 ? "100" : "300")"
            default: entry.event.name
            }
        }
    }
}

/// The cue events a rider riding the whole of `course` from `from` metres to `to` should get,
/// in order, as ``Narration/words``.
package func expectedCues(_ course: Course, from: Double, to: Double, announcements: [Double] = [300, 100]) -> [(Double, String)] {
    var said: [(Double, String)] = []
    for cue in course.cues where cue.distance > from && cue.distance <= to {
        // Each announcement whose bracket (down to the next one, or to "now") the rider is
        // before: at its distance, or at once when joining inside it.
        let brackets = announcements + [20]
        for (index, distance) in announcements.enumerated() where cue.distance - brackets[index + 1] > from {
            said.append((max(from, cue.distance - distance), "cue \(cue.kind.rawValue) \(Int(distance))"))
        }
        said.append((cue.distance - 20, "cue \(cue.kind.rawValue) now"))
    }
    return said
}
