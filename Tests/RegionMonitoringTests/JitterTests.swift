import Foundation
import LocationCore
import RegionMonitoring
import SimulatorsCore
import Testing

@Suite("Rules against jitter, on fixes with their own times")
struct JitterTests {
    let center = Walks.greenwich

    @Test("A walk across a circle's edge, with 10 m of jitter and honest accuracies, enters once and leaves once")
    func walkAcross() throws {
        let monitor = RegionMonitor()
        monitor.add(try .circle(center: center, radius: 100), identifier: "park")
        var random = SeededRandom(seed: 28)
        let path = Walks.line(from: center.destination(bearing: 270, distance: 250), bearing: 90, step: 1.4, seconds: 360)
        var events: [RegionEvent] = []
        for (second, point) in path.enumerated() {
            events += monitor.process(Walks.fix(Walks.jittered(point, radius: 10, &random), at: Double(second), accuracy: 10))
        }
        #expect(events.filter { $0.kind != .dwell }.kinds == [.enter, .exit])
        let enter = try #require(events.first)
        // Proven inside once the error circle is inside: 100 m from the centre less 10 m of accuracy.
        #expect(center.distance(to: GeoCoordinate(latitude: enter.location!.latitude, longitude: enter.location!.longitude)) < 90)
        #expect(enter.firstIndication! <= enter.date)
        #expect(monitor.record(for: "park")?.state == .unsatisfied)
    }

    @Test("The same walk with the same jitter but claimed accuracies of 1 m flaps: the rule is what holds it")
    func dishonestAccuracyFlaps() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(hysteresis: 0, confirmation: .fixes(1)))
        monitor.add(try .circle(center: center, radius: 100), identifier: "park")
        var random = SeededRandom(seed: 28)
        var events: [RegionEvent] = []
        // Standing on the edge for a minute.
        for second in 0..<60 {
            events += monitor.process(Walks.fix(Walks.jittered(center.destination(bearing: 90, distance: 100), radius: 10, &random), at: Double(second), accuracy: 1))
        }
        #expect(events.filter { $0.kind == .exit }.count > 3)
    }

    @Test("A fix 200 m out claiming 2 m between good ones makes no exit with confirmation; without it, it does")
    func outlier() throws {
        for (confirmation, exits) in [(MonitoringRules.Confirmation.fixes(2), 0), (.fixes(1), 1)] {
            let monitor = RegionMonitor(rules: MonitoringRules(confirmation: confirmation))
            monitor.add(try .circle(center: center, radius: 100), identifier: "home", assuming: .satisfied)
            var events: [RegionEvent] = []
            for second in 0..<30 {
                let point = second == 15 ? center.destination(bearing: 45, distance: 200) : center
                events += monitor.process(Walks.fix(point, at: Double(second), accuracy: second == 15 ? 2 : 5))
            }
            #expect(events.filter { $0.kind == .exit }.count == exits, "confirmation \(confirmation)")
        }
    }

    @Test("Confirmation by time: fixes pointing out for 5 s from the first of them")
    func confirmationByTime() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(confirmation: .duration(.seconds(5))))
        monitor.add(try .circle(center: center, radius: 100), identifier: "home", assuming: .satisfied)
        let outside = center.destination(bearing: 0, distance: 300)
        var events: [RegionEvent] = []
        for second in 0..<10 { events += monitor.process(Walks.fix(outside, at: Double(10 + second))) }
        let exit = try #require(events.first { $0.kind == .exit })
        #expect(exit.date == Walks.start.addingTimeInterval(15))
        #expect(exit.firstIndication == Walks.start.addingTimeInterval(10))
    }

    @Test("A fix claiming 2,200 m decides nothing, wherever it is")
    func inaccurateFix() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(confirmation: .fixes(1)))
        monitor.add(try .circle(center: center, radius: 100), identifier: "home")
        #expect(monitor.process(Walks.fix(center, at: 0, accuracy: 2200)).isEmpty)
        #expect(monitor.record(for: "home")?.state == .unknown)
        #expect(monitor.process(Walks.fix(center, at: 1, accuracy: 5)).kinds == [.enter])
    }

    @Test("A fix whose error circle straddles the edge decides nothing; one beyond the hysteresis does")
    func straddling() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(hysteresis: 5, confirmation: .fixes(1)))
        monitor.add(try .circle(center: center, radius: 100), identifier: "home", assuming: .satisfied)
        // 108 m out with 5 m accuracy: 103 m, not beyond 100 + 5.
        #expect(monitor.process(Walks.fix(center.destination(bearing: 0, distance: 108), at: 0, accuracy: 5)).isEmpty)
        // 96 m in with 5 m: its circle reaches out to 101 m.
        #expect(monitor.process(Walks.fix(center.destination(bearing: 0, distance: 96), at: 1, accuracy: 5)).isEmpty)
        #expect(monitor.process(Walks.fix(center.destination(bearing: 0, distance: 111), at: 2, accuracy: 5)).kinds == [.exit])
    }

    @Test("Dwell: one event once inside for the rules' time")
    func dwell() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(dwell: .seconds(30)))
        monitor.add(try .circle(center: center, radius: 100), identifier: "cafe")
        var events: [(Int, RegionEvent)] = []
        for second in 0..<120 {
            events += monitor.process(Walks.fix(center, at: Double(second))).map { (second, $0) }
        }
        #expect(events.map(\.1.kind) == [.enter, .dwell])
        #expect(events[1].0 == events[0].0 + 30)
    }

    @Test("No usable fix for 10 s: unknown; the same state proven again makes no exit and no enter")
    func unknownAndBack() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(dwell: nil))
        monitor.add(try .circle(center: center, radius: 100), identifier: "home", assuming: .satisfied)
        #expect(monitor.process(Walks.fix(center, at: 0)).isEmpty)
        #expect(monitor.check(at: Walks.start.addingTimeInterval(9.9)).isEmpty)
        let unknown = monitor.check(at: Walks.start.addingTimeInterval(10))
        #expect(unknown.kinds == [.unknown])
        #expect(unknown.first?.state == .unknown)
        #expect(monitor.check(at: Walks.start.addingTimeInterval(30)).isEmpty)  // said once
        var events: [RegionEvent] = []
        for second in 60..<70 { events += monitor.process(Walks.fix(center, at: Double(second))) }
        #expect(events.isEmpty)
        #expect(monitor.record(for: "home")?.state == .satisfied)
        // Out while unknown: the exit is said once the fixes prove it.
        let monitor2 = RegionMonitor()
        monitor2.add(try .circle(center: center, radius: 100), identifier: "home", assuming: .satisfied)
        monitor2.process(Walks.fix(center, at: 0))
        #expect(monitor2.process(Walks.fix(center.destination(bearing: 0, distance: 500), at: 40)).kinds == [.unknown])
        #expect(monitor2.process(Walks.fix(center.destination(bearing: 0, distance: 500), at: 41)).kinds == [.exit])
    }

    @Test("A region first proven outside makes no event; first proven inside, an enter")
    func firstDetermination() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(confirmation: .fixes(1)))
        monitor.add(try .circle(center: center, radius: 100), identifier: "in")
        monitor.add(try .circle(center: center.destination(bearing: 0, distance: 1000), radius: 100), identifier: "out")
        let events = monitor.process(Walks.fix(center, at: 0))
        #expect(events.map(\.identifier) == ["in"])
        #expect(monitor.record(for: "out")?.state == .unsatisfied)
    }

    @Test("A region's own rules take the place of the monitor's for it alone")
    func regionRules() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(confirmation: .fixes(3), dwell: nil))
        let circle = try RegionCondition.circle(center: center, radius: 100)
        monitor.add(circle, identifier: "patient")
        monitor.add(circle, identifier: "quick", rules: MonitoringRules(confirmation: .fixes(1), dwell: .seconds(5)))
        var events: [(Int, String, RegionEvent.Kind)] = []
        for second in 0..<10 {
            events += monitor.process(Walks.fix(center, at: Double(second))).map { (second, $0.identifier, $0.kind) }
        }
        #expect(events.map { "\($0.0) \($0.1) \($0.2)" } == ["0 quick enter", "2 patient enter", "5 quick dwell"])
    }
}
