#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// A recorded situation that location code must survive, ready to play in-process (as a
/// ``ReplayLocationSource``) or over loopback (as a ``FakeGPSDServer``): the hard cases of the
/// field, made repeatable.
///
/// ```swift
/// let clock = VirtualClock()
/// let scenario = ReplayScenario.coldStart(noFixFor: .seconds(40), twoDimensionalFor: .seconds(5))
/// let device = scenario.device(clock: clock)
/// let events = LocationEventRecorder(observing: device)
/// let manager = LocationManager(source: device, clock: clock)
/// let fix = Task { try await manager.requestLocation(timeout: .seconds(60), minimumMode: .fix3D) }
/// await events.waitUntil { $0.states.contains(.watching) }   // the request has started the device
/// await clock.advance(by: .seconds(60))
/// let first = try await fix.value   // the first 3D fix, 45 s in
/// ```
///
/// Every fix is simulated, on a ``SyntheticTrack`` from Greenwich unless you pass your own.
public struct ReplayScenario: Sendable {
    /// What happens, in order.
    public var timeline: [ReplayLocationSource.Entry]
    /// For the fake gpsd server: the faults that play the scenario's connection events (a gpsd
    /// restart becomes ``GPSDFault/closeConnections(afterMessages:)``).
    public var faults: [GPSDFault]

    public init(timeline: [ReplayLocationSource.Entry], faults: [GPSDFault] = []) {
        self.timeline = timeline
        self.faults = faults
    }

    /// An in-process device playing the scenario.
    public func device(speed: Double = 1, clock: some Clock<Duration> = ContinuousClock()) -> ReplayLocationSource {
        ReplayLocationSource(timeline: timeline, speed: speed, clock: clock)
    }

    /// The scenario's reports as a gpsd script (TPVs with their devices, no-fix TPVs); connection
    /// events are left to ``faults``.
    public var script: GPSDScript {
        GPSDScript(timeline: timeline)
    }

    /// The fixes of the scenario, in order.
    public var locations: [Location] {
        timeline.compactMap { entry in
            if case let .location(location) = entry.event { location } else { nil }
        }
    }

    // MARK: - The hard cases

    /// A receiver just switched on: no fix for `noFixFor` (one no-fix report a second), then
    /// 2D fixes (no altitude) for `twoDimensionalFor`, then 3D fixes for `threeDimensionalFor`.
    public static func coldStart(
        noFixFor: Duration = .seconds(30),
        twoDimensionalFor: Duration = .seconds(10),
        threeDimensionalFor: Duration = .seconds(60),
        track: [Location]? = nil
    ) -> ReplayScenario {
        let blind = seconds(noFixFor), flat = seconds(twoDimensionalFor), full = seconds(threeDimensionalFor)
        let fixes = track ?? SyntheticTrack.generate(count: blind + flat + full)
        var timeline: [ReplayLocationSource.Entry] = []
        for second in 0..<(blind + flat + full) {
            let fix = fixes[second % fixes.count]
            if second < blind {
                timeline.append(.init(offset: .seconds(second), event: .noFix(device: fix.device, time: fix.time)))
            } else if second < blind + flat {
                timeline.append(.init(offset: .seconds(second), event: .location(twoDimensional(fix))))
            } else {
                timeline.append(.init(offset: .seconds(second), event: .location(fix)))
            }
        }
        return ReplayScenario(timeline: timeline)
    }

    /// 3D fixes for `before`, the fix lost (no-fix reports) for `lostFor`, then fixes again for
    /// `after`: a tunnel, a bridge, a boat's mast in the way.
    public static func fixLostAndRegained(
        before: Duration = .seconds(20), lostFor: Duration = .seconds(15), after: Duration = .seconds(20),
        track: [Location]? = nil
    ) -> ReplayScenario {
        let first = seconds(before), gap = seconds(lostFor), last = seconds(after)
        let fixes = track ?? SyntheticTrack.generate(count: first + gap + last)
        let timeline = (0..<(first + gap + last)).map { second -> ReplayLocationSource.Entry in
            let fix = fixes[second % fixes.count]
            let lost = second >= first && second < first + gap
            return .init(offset: .seconds(second), event: lost ? .noFix(device: fix.device, time: fix.time) : .location(fix))
        }
        return ReplayScenario(timeline: timeline)
    }

    /// A track whose position jumps `metres` along `course` after `before` (a multipath glitch or
    /// a receiver re-acquiring), and stays offset for `after`.
    public static func positionJump(
        before: Duration = .seconds(20), metres: Double = 500, course: Double = 90, after: Duration = .seconds(20),
        track: [Location]? = nil
    ) -> ReplayScenario {
        let first = seconds(before), last = seconds(after)
        let fixes = track ?? SyntheticTrack.generate(count: first + last)
        let timeline = (0..<(first + last)).map { second -> ReplayLocationSource.Entry in
            var fix = fixes[second % fixes.count]
            if second >= first {
                (fix.latitude, fix.longitude) = SyntheticTrack.destination(fix.latitude, fix.longitude, course: course, distance: metres)
            }
            return .init(offset: .seconds(second), event: .location(fix))
        }
        return ReplayScenario(timeline: timeline)
    }

    /// gpsd going away after `before` and coming back `downFor` later: in-process the device
    /// reports the connection lost, waits, reconnects and watches again, as a `GPSDClient` does;
    /// over loopback the fake server closes every connection and lets clients come back.
    public static func gpsdRestart(
        before: Duration = .seconds(10), downFor: Duration = .seconds(5), after: Duration = .seconds(10),
        track: [Location]? = nil
    ) -> ReplayScenario {
        let first = seconds(before), gap = seconds(downFor), last = seconds(after)
        let fixes = track ?? SyntheticTrack.generate(count: first + gap + last)
        var timeline: [ReplayLocationSource.Entry] = []
        for second in 0..<first {
            timeline.append(.init(offset: .seconds(second), event: .location(fixes[second % fixes.count])))
        }
        let lostAt = Duration.seconds(first) - .milliseconds(500)
        let lost = LocationError.connectionLost(host: "127.0.0.1", port: 2947, reason: "simulated gpsd restart")
        timeline.append(.init(offset: lostAt, event: .error(lost)))
        timeline.append(.init(offset: lostAt, event: .connectionChanged(.waitingToReconnect(after: downFor, attempt: 1))))
        let backAt = lostAt + downFor
        timeline.append(.init(offset: backAt, event: .connectionChanged(.connecting(attempt: 1))))
        timeline.append(.init(offset: backAt, event: .connectionChanged(.connected)))
        timeline.append(.init(offset: backAt, event: .connectionChanged(.watching)))
        for second in (first + gap)..<(first + gap + last) {
            timeline.append(.init(offset: .seconds(second), event: .location(fixes[second % fixes.count])))
        }
        return ReplayScenario(timeline: timeline, faults: [.closeConnections(afterMessages: first)])
    }

    /// One fix, then silence for `silentFor`: the receiver stopped reporting but gpsd still holds
    /// its last fix, so a `?POLL;` (`LocationSource/requestLatestFix()`) answers with a fix that
    /// grows older. A request whose `maximumAge` is shorter than that age must not take it.
    ///
    /// In-process, the device reports the fix's age on its clock. Over loopback, the fake gpsd's
    /// answer carries its host clock, on the script's time line, as real gpsd's carries the
    /// machine's: a `GPSDClient` that trusts it (`hostClock: .synchronized`) finds the same age.
    public static func staleCachedFix(silentFor: Duration = .seconds(120), track: [Location]? = nil) -> ReplayScenario {
        let fix = (track ?? SyntheticTrack.generate(count: 1))[0]
        var timeline: [ReplayLocationSource.Entry] = [.init(offset: .zero, event: .location(fix))]
        // A no-fix report closing the silence, so the recording lasts `silentFor`.
        timeline.append(.init(offset: silentFor, event: .noFix(device: fix.device, time: fix.time.map { $0 + Double(seconds(silentFor)) })))
        return ReplayScenario(timeline: timeline)
    }

    /// `count` receivers on one gpsd (`/dev/ttyUSB0`, `/dev/ttyUSB1`...), each with its own track
    /// from its own start point, reporting in turn every second for `duration`.
    public static func severalDevices(count: Int = 2, duration: Duration = .seconds(30)) -> ReplayScenario {
        let length = seconds(duration)
        let tracks = (0..<count).map { index in
            SyntheticTrack.generate(
                count: length,
                start: SyntheticTrack.destination(
                    SyntheticTrack.greenwich.latitude, SyntheticTrack.greenwich.longitude,
                    course: Double(index) * 360 / Double(max(count, 1)), distance: 2_000 * Double(index)),
                seed: UInt64(index + 1),
                device: devicePath(index))
        }
        var timeline: [ReplayLocationSource.Entry] = []
        for second in 0..<length {
            for track in tracks {
                timeline.append(.init(offset: .seconds(second), event: .location(track[second])))
            }
        }
        return ReplayScenario(timeline: timeline)
    }

    /// The path ``severalDevices(count:duration:)`` gives device `index`.
    public static func devicePath(_ index: Int) -> String {
        "/dev/ttyUSB\(index)"
    }

    // MARK: - Helpers

    private static func seconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds)
    }

    private static func twoDimensional(_ fix: Location) -> Location {
        var fix = fix
        fix.mode = .fix2D
        fix.altitude = nil
        fix.ellipsoidalAltitude = nil
        fix.verticalAccuracy = nil
        fix.climb = nil
        return fix
    }
}
