import Foundation
import LocationCore
import RegionMonitoring
import SimulatorsCore
import Testing

@Suite("The anchor alarm")
struct AnchorTests {
    let anchor = GeoCoordinate(latitude: 50.1512, longitude: -5.0671)

    @Test("A boat swinging 20 m round its anchor on a 40 m radius for an hour raises no alarm; a 60 m drag alarms within two fixes")
    func swingThenDrag() throws {
        let alarm = try AnchorAlarm(anchor: anchor, swingRadius: 40)
        let monitor = RegionMonitor()
        monitor.add(alarm.condition, identifier: "anchor", assuming: .satisfied)
        var random = SeededRandom(seed: 44)
        var events: [RegionEvent] = []
        var second = 0.0
        // An hour at 1 Hz: the boat's bearing from the anchor swings ±60° with the wind over ten
        // minutes, 20 m out on its rode, the receiver wandering 3 m round that and claiming 4 m.
        for _ in 0..<3600 {
            let bearing = 200 + 60 * sin(second / 600 * 2 * .pi)
            let boat = Walks.jittered(anchor.destination(bearing: bearing, distance: 20), radius: 3, &random)
            events += monitor.process(Walks.fix(boat, at: second, accuracy: 4))
            second += 1
        }
        // Not even a dwell: an hour at anchor is what an anchor is for.
        #expect(events.isEmpty, "\(events.map(\.kind))")
        // It drags: 60 m out.
        var dragged: [Int] = []
        for fix in 0..<5 {
            let boat = Walks.jittered(anchor.destination(bearing: 200, distance: 60), radius: 3, &random)
            if monitor.process(Walks.fix(boat, at: second, accuracy: 4)).contains(where: { $0.kind == .drag }) { dragged.append(fix) }
            second += 1
        }
        #expect(dragged.count == 1)
        #expect((dragged.first ?? 99) <= 1)
        #expect(monitor.record(for: "anchor")?.state == .unsatisfied)
    }

    @Test("The swing radius from rode and depth, the anchor dropped at a bearing and distance, and the live distance and bearing to it")
    func geometry() throws {
        #expect(abs(AnchorAlarm.swingRadius(rode: 50, depth: 14, margin: 0) - 48) < 0.001)
        #expect(abs(AnchorAlarm.swingRadius(rode: 50, depth: 14) - 58) < 0.001)
        let here = Walks.fix(anchor, at: 0)
        let alarm = try AnchorAlarm(droppedAt: here, bearing: 45, distance: 30, swingRadius: 50)
        #expect(abs(alarm.distance(from: here) - 30) < 0.01)
        #expect(abs(alarm.bearing(from: here) - 45) < 0.01)
        let there = Walks.fix(alarm.anchor.destination(bearing: 135, distance: 25), at: 1)
        #expect(abs(alarm.bearing(from: there) - 315) < 0.01)
    }

    @Test("An anchor makes no dwell event by the monitor's rules; rules of its own that ask for one get it, as a circle does by the monitor's")
    func dwellOnlyWhenAsked() throws {
        let alarm = try AnchorAlarm(anchor: anchor, swingRadius: 40)
        let monitor = RegionMonitor(rules: MonitoringRules(dwell: .seconds(60)))
        monitor.add(alarm.condition, identifier: "anchor", assuming: .satisfied)
        monitor.add(alarm.condition, identifier: "asked", assuming: .satisfied, rules: MonitoringRules(dwell: .seconds(120)))
        monitor.add(.circle(try CircularRegion(center: anchor, radius: 40)), identifier: "circle", assuming: .satisfied)
        var dwells: [String: Double] = [:]
        for second in 0..<300 {
            for event in monitor.process(Walks.fix(anchor, at: Double(second), accuracy: 4)) where event.kind == .dwell {
                dwells[event.identifier] = event.date.timeIntervalSince(Walks.start)
            }
        }
        #expect(dwells == ["circle": 60, "asked": 120], "\(dwells)")
    }

    @Test("No fix for 10 s is the no-fix alarm")
    func noFix() throws {
        let alarm = try AnchorAlarm(anchor: anchor, swingRadius: 40)
        let monitor = RegionMonitor()
        monitor.add(alarm.condition, identifier: "anchor", assuming: .satisfied)
        monitor.process(Walks.fix(anchor, at: 0))
        let events = monitor.check(at: Walks.start.addingTimeInterval(12))
        #expect(events.kinds == [.unknown])
        #expect(events.first?.date == Walks.start.addingTimeInterval(10))
    }
}
