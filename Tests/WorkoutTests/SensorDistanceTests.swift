import Foundation
import LocationCore
import Simulators
import Testing
import TestSupport
import WorkoutSimulators
@testable import Workout

/// Outdoors with a wheel sensor: the fixes count where they are usable, the wheel across a
/// tunnel (and a stop in it is a stop), and the wheel's circumference is calibrated against the
/// stretches of good GPS.
@Suite(.timeLimit(.minutes(1))) struct SensorDistanceTests {
    /// A ride of 20 minutes at 8 m/s: 600 s east, a tunnel from 600 s to 690 s that turns back
    /// on a half circle (with a stop from 630 s to 650 s in it), then west; no fix inside the tunnel.
    struct TunnelRide {
        static let start = Date(timeIntervalSince1970: 1_717_000_000)
        static let speed = 8.0
        static let stop = 630.0...650.0
        static let tunnel = 600.0...690.0
        static let duration = 1_200.0
        /// The wheel's true circumference, and the one its sensor is told.
        static let trueCircumference = 2.096
        static let assumedCircumference = 2.105
        /// Metres the arc takes: 70 s of riding.
        static let arc = 560.0
        static var radius: Double { arc / .pi }

        /// Metres covered by `time` seconds.
        static func covered(at time: Double) -> Double {
            if time <= stop.lowerBound { return speed * time }
            if time <= stop.upperBound { return speed * stop.lowerBound }
            return speed * stop.lowerBound + speed * (time - stop.upperBound)
        }

        static var distance: Double { covered(at: duration) }

        /// Where the rider is after `metres`, metres east and north of the start.
        static func place(after metres: Double) -> (east: Double, north: Double) {
            let eastLeg = speed * tunnel.lowerBound
            if metres <= eastLeg { return (metres, 0) }
            if metres <= eastLeg + arc {
                let angle = -Double.pi / 2 + (metres - eastLeg) / radius
                return (eastLeg + radius * cos(angle), radius + radius * sin(angle))
            }
            return (eastLeg - (metres - eastLeg - arc), 2 * radius)
        }

        static func fix(at time: Double) -> Location {
            let (east, north) = place(after: covered(at: time))
            let metresPerDegree = Geodesy.meanEarthRadius * .pi / 180
            let latitude = 51.5 + north / metresPerDegree
            let longitude = east / (metresPerDegree * cos(51.5 * .pi / 180))
            let moving = !(stop.lowerBound < time && time <= stop.upperBound)
            return Location(
                latitude: latitude, longitude: longitude, horizontalAccuracy: 5, speed: moving ? speed : 0,
                time: start.addingTimeInterval(time), mode: .fix3D)
        }

        /// A fix a second, none inside the tunnel.
        static var fixes: [Location] {
            stride(from: 0.0, through: duration, by: 1).filter { !(tunnel.lowerBound < $0 && $0 < tunnel.upperBound) }.map(fix(at:))
        }

        /// The wheel sensor's samples, each second: its speed and the distance of the second, as
        /// it reckons them by the circumference it is told (too large); a speed of 0 while stopped.
        static var wheel: [QuantitySample] {
            let scale = assumedCircumference / trueCircumference
            var samples: [QuantitySample] = []
            for second in stride(from: 1.0, through: duration, by: 1) {
                let at = start.addingTimeInterval(second)
                let metres = covered(at: second) - covered(at: second - 1)
                samples.append(QuantitySample(type: .speed, value: metres * scale, at: at))
                if metres > 0 {
                    samples.append(QuantitySample(type: .distance, value: metres * scale, start: at.addingTimeInterval(-1), end: at))
                }
            }
            return samples
        }
    }

    func record(
        _ configuration: WorkoutSession.Configuration, fixes: [Location] = TunnelRide.fixes, wheel: [QuantitySample] = TunnelRide.wheel
    ) async throws -> (WorkoutRecord, WorkoutStore, WorkoutSession.Statistics) {
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let gps = ReplayLocationSource(locations: fixes, clock: clock)
        let sensor = TimedSampleSource(samples: wheel, startingAt: TunnelRide.start, clock: clock)
        let session = WorkoutSession(store: store, source: gps, samples: [sensor], configuration: configuration, clock: clock)
        try session.start()
        await clock.advance(by: .seconds(TunnelRide.duration + 2))
        let live = session.currentStatistics
        return (try await session.end(), store, live)
    }

    static let cycling = WorkoutSession.Configuration(activityType: .cycling, autoPause: .defaults(for: .cycling))

    @Test func aTunnelCountsTheWheelAndAStopInItIsAStop() async throws {
        let (workout, store, live) = try await record(Self.cycling)
        let distance = try #require(workout.totals.distance)
        #expect(abs(distance - TunnelRide.distance) < TunnelRide.distance * 0.01, "\(distance) m, truly \(TunnelRide.distance) m")
        // Exactly, but for the wheel's calibration (its circumference to within what 8.9 km of fixes tell).
        #expect(abs(distance - TunnelRide.distance) < 0.5, "\(distance - TunnelRide.distance) m off")
        let stops = try await store.events(of: workout.id).filter { $0.kind == .motionPaused || $0.kind == .motionResumed }
        #expect(stops.map { $0.time.timeIntervalSince(TunnelRide.start) } == [630, 650], "the stop in the tunnel: \(stops)")
        #expect(workout.movingTime == TunnelRide.duration - 20, "\(stops)")
        let recorded = try #require(SensorDistance(workout.metadata))
        #expect(recorded.source == .automatic && !recorded.circumferenceIsGiven && recorded.circumference == TunnelRide.assumedCircumference)
        let calibrated = try #require(recorded.calibratedCircumference)
        #expect(abs(calibrated - TunnelRide.trueCircumference) < TunnelRide.trueCircumference * 0.005, "calibrated \(calibrated) m")
        #expect(abs(recorded.factor - TunnelRide.trueCircumference / TunnelRide.assumedCircumference) < 1e-6)
        #expect(live.calibratedWheelCircumference.map { abs($0 - TunnelRide.trueCircumference) < 0.01 } == true, "said live: \(String(describing: live.calibratedWheelCircumference)), \(live.sensorCalibration)")
        let laps = try await store.laps(of: workout.id)
        #expect(laps.map(\.distance).reduce(0, +) == distance, "the store reads it back as it was saved")
    }

    @Test func withGPSAloneTheTunnelIsAStraightLine() async throws {
        var configuration = Self.cycling
        configuration.distanceSource = .gps
        let (workout, _, _) = try await record(configuration)
        let straight = 2 * TunnelRide.radius
        let expected = TunnelRide.distance - TunnelRide.arc + straight
        #expect(abs(try #require(workout.totals.distance) - expected) < 0.5, "the half circle's diameter, not its arc")
    }

    @Test func withTheSensorAloneEveryMetreIsTheWheels() async throws {
        var configuration = Self.cycling
        configuration.distanceSource = .sensor
        configuration.wheelCircumference = .given(TunnelRide.assumedCircumference)
        let (workout, _, live) = try await record(configuration)
        // Given, the circumference is kept: the wheel's too-long metres are counted as it measured them.
        let scale = TunnelRide.assumedCircumference / TunnelRide.trueCircumference
        let distance = try #require(workout.totals.distance)
        #expect(abs(distance - TunnelRide.distance * scale) < 1e-6, "\(distance - TunnelRide.distance * scale) m off")
        let recorded = try #require(SensorDistance(workout.metadata))
        #expect(recorded.factor == 1 && recorded.circumferenceIsGiven)
        #expect(recorded.calibratedCircumference.map { abs($0 - TunnelRide.trueCircumference) < 0.01 } == true, "only reported")
        #expect(live.calibratedWheelCircumference != nil)
    }

    @Test func aGivenCircumferenceIsKeptAndTheCalibrationReported() async throws {
        var configuration = Self.cycling
        configuration.wheelCircumference = .given(TunnelRide.assumedCircumference)
        let (workout, _, _) = try await record(configuration)
        let scale = TunnelRide.assumedCircumference / TunnelRide.trueCircumference
        // The tunnel's 560 m as the wheel measured them, the rest by the fixes.
        let expected = TunnelRide.distance - TunnelRide.arc + TunnelRide.arc * scale
        #expect(abs(try #require(workout.totals.distance) - expected) < 0.5)
    }

    @Test func withoutAWheelTheTunnelIsStillTheStraightLine() async throws {
        let (workout, _, _) = try await record(Self.cycling, wheel: [])
        let expected = TunnelRide.distance - TunnelRide.arc + 2 * TunnelRide.radius
        #expect(abs(try #require(workout.totals.distance) - expected) < 0.5)
        #expect(SensorDistance(workout.metadata)?.circumference == nil, "no wheel, nothing said of one")
    }
}
