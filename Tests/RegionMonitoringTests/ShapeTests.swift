import Foundation
import LocationCore
import RegionMonitoring
import SimulatorsCore
import Testing

@Suite("Polygons, corridors and lines")
struct ShapeTests {
    let center = Walks.greenwich

    /// A square `half` metres either side of `center`, edges straight in lon/lat.
    func square(_ center: GeoCoordinate, half: Double) -> [GeoCoordinate] {
        let north = center.destination(bearing: 0, distance: half).latitude
        let south = center.destination(bearing: 180, distance: half).latitude
        let east = center.destination(bearing: 90, distance: half).longitude
        let west = center.destination(bearing: 270, distance: half).longitude
        return [
            GeoCoordinate(latitude: south, longitude: west), GeoCoordinate(latitude: south, longitude: east),
            GeoCoordinate(latitude: north, longitude: east), GeoCoordinate(latitude: north, longitude: west),
            GeoCoordinate(latitude: south, longitude: west),
        ]
    }

    @Test("A walk through a polygon with a hole: enter, exit into the hole, enter out of it, exit")
    func polygonWithHole() throws {
        let polygon = try GeoPolygon(exterior: square(center, half: 300), holes: [square(center, half: 100)])
        let monitor = RegionMonitor()
        monitor.add(.polygon(try PolygonalRegion([polygon])), identifier: "ring")
        let path = Walks.line(from: center.destination(bearing: 270, distance: 400), bearing: 90, step: 2, seconds: 400)
        var events: [RegionEvent] = []
        for (second, point) in path.enumerated() { events += monitor.process(Walks.fix(point, at: Double(second))) }
        #expect(events.filter { $0.kind != .dwell }.kinds == [.enter, .exit, .enter, .exit])
        #expect(polygon.contains(center) == false)
        #expect(polygon.contains(center.destination(bearing: 90, distance: 200)))
    }

    @Test("A line crossed between two fixes: its time interpolated within 0.1 s of the truth, and its direction")
    func lineCrossing() throws {
        // A north-south finish line; a runner going east at 4.3 m/s crosses it 52.37 s after the start.
        let line = try CrossingLine(
            from: center.destination(bearing: 180, distance: 20), to: center.destination(bearing: 0, distance: 20))
        let monitor = RegionMonitor()
        monitor.add(.line(line), identifier: "finish")
        let truth = 52.37
        let speed = 4.3
        var events: [RegionEvent] = []
        for second in 0..<80 {
            let along = (Double(second) - truth) * speed
            let point = center.destination(bearing: along < 0 ? 270 : 90, distance: abs(along))
            events += monitor.process(Walks.fix(point, at: Double(second), accuracy: 3))
        }
        let crossing = try #require(events.first)
        #expect(events.count == 1)
        #expect(crossing.kind == .cross)
        // Looking north along the line, west is its left: going east is left to right.
        #expect(crossing.direction == .leftToRight)
        #expect(abs(crossing.date.timeIntervalSince(Walks.start) - truth) < 0.1)
    }

    @Test("A line: jitter at the line makes one crossing, and passing beside it makes none")
    func lineJitterAndBeside() throws {
        let line = try CrossingLine(from: center.destination(bearing: 180, distance: 20), to: center.destination(bearing: 0, distance: 20))
        let monitor = RegionMonitor()
        monitor.add(.line(line), identifier: "gate")
        var random = SeededRandom(seed: 7)
        var events: [RegionEvent] = []
        // Walks up to the line, stands on it for a minute in 5 m of jitter (claiming 5 m), goes on west.
        var second = 0.0
        for along in stride(from: 60.0, to: 0, by: -1.5) {
            events += monitor.process(Walks.fix(center.destination(bearing: 90, distance: along), at: second, accuracy: 5))
            second += 1
        }
        for _ in 0..<60 {
            events += monitor.process(Walks.fix(Walks.jittered(center, radius: 5, &random), at: second, accuracy: 5))
            second += 1
        }
        for along in stride(from: 1.5, to: 60, by: 1.5) {
            events += monitor.process(Walks.fix(center.destination(bearing: 270, distance: along), at: second, accuracy: 5))
            second += 1
        }
        #expect(events.kinds == [.cross])
        #expect(events.first?.direction == .rightToLeft)
        // Beside it: 100 m north of its end, east to west.
        let beside = center.destination(bearing: 0, distance: 120)
        var besideEvents: [RegionEvent] = []
        for step in 0..<60 {
            besideEvents += monitor.process(Walks.fix(beside.destination(bearing: 90, distance: 60 - Double(step) * 2), at: second + Double(step)))
        }
        #expect(besideEvents.isEmpty)
    }

    @Test("A corridor left and re-joined: one exit, one enter")
    func corridor() throws {
        // The route goes east 2 km; the rider leaves it for 80 m north half way, then comes back.
        let route = Walks.line(from: center, bearing: 90, step: 100, seconds: 21)
        let monitor = RegionMonitor()
        monitor.add(.corridor(try CorridorRegion(path: route, halfWidth: 30)), identifier: "route", assuming: .satisfied)
        var events: [RegionEvent] = []
        for second in 0..<400 {
            let along = center.destination(bearing: 90, distance: Double(second) * 5)
            let off: Double = switch second {
            case 150..<170: Double(second - 150) * 4
            case 170..<200: 80
            case 200..<220: 80 - Double(second - 200) * 4
            default: 0
            }
            events += monitor.process(Walks.fix(along.destination(bearing: 0, distance: off), at: Double(second)))
        }
        #expect(events.filter { $0.kind != .dwell }.kinds == [.exit, .enter])
        let exit = events.first { $0.kind == .exit }!
        // Off course once 30 m + 5 m of hysteresis + 5 m of accuracy away: 10 s into the veer.
        #expect(exit.date.timeIntervalSince(Walks.start) > 159 && exit.date.timeIntervalSince(Walks.start) < 163)
    }

    @Test("Shapes across the antimeridian, or off the Earth, are refused with a reason")
    func refused() {
        #expect(throws: RegionGeometryError.self) {
            try GeoPolygon(exterior: [
                GeoCoordinate(latitude: -17, longitude: 179.5), GeoCoordinate(latitude: -17, longitude: -179.5),
                GeoCoordinate(latitude: -18, longitude: -179.5), GeoCoordinate(latitude: -18, longitude: 179.5),
            ])
        }
        do {
            _ = try CorridorRegion(path: [GeoCoordinate(latitude: 0, longitude: 179), GeoCoordinate(latitude: 0, longitude: -179)], halfWidth: 10)
            Issue.record("accepted a path across the antimeridian")
        } catch {
            #expect(error.reason.contains("antimeridian"))
        }
        #expect(throws: RegionGeometryError.self) { try CircularRegion(center: GeoCoordinate(latitude: 91, longitude: 0), radius: 5) }
        #expect(throws: RegionGeometryError.self) { try CircularRegion(center: center, radius: 0) }
    }

    @Test("A circle over the antimeridian holds the fixes on either side of it")
    func circleOverTheAntimeridian() throws {
        let monitor = RegionMonitor(rules: MonitoringRules(confirmation: .fixes(1)))
        monitor.add(try .circle(center: GeoCoordinate(latitude: -16.5, longitude: 179.9995), radius: 300), identifier: "fiji")
        #expect(monitor.process(Walks.fix(GeoCoordinate(latitude: -16.5, longitude: -179.9995), at: 0)).kinds == [.enter])
        #expect(monitor.process(Walks.fix(GeoCoordinate(latitude: -16.5, longitude: 179.999), at: 1)).isEmpty)
        #expect(monitor.process(Walks.fix(GeoCoordinate(latitude: -16.5, longitude: -179.99), at: 2)).kinds == [.exit])
    }

    @Test("The grid index gives exactly the events of each region watched alone")
    func indexMatchesBruteForce() throws {
        var random = SeededRandom(seed: 1000)
        let together = RegionMonitor()
        var alone: [(String, RegionMonitor)] = []
        for number in 0..<150 {
            let spot = center.destination(bearing: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...5000, using: &random))
            let condition: RegionCondition
            if number.isMultiple(of: 2) {
                condition = try .circle(center: spot, radius: Double.random(in: 20...400, using: &random))
            } else {
                condition = .polygon(try PolygonalRegion([GeoPolygon(exterior: square(spot, half: Double.random(in: 20...400, using: &random)))]))
            }
            together.add(condition, identifier: "r\(number)")
            let single = RegionMonitor()
            single.add(condition, identifier: "r\(number)")
            alone.append(("r\(number)", single))
        }
        var expected: [RegionEvent] = []
        var got: [RegionEvent] = []
        var position = center
        for second in 0..<800 {
            position = position.destination(bearing: Double(second / 60) * 47, distance: 8)
            let fix = Walks.fix(Walks.jittered(position, radius: 8, &random), at: Double(second), accuracy: 8)
            got += together.process(fix)
            for (_, monitor) in alone { expected += monitor.process(fix) }
        }
        #expect(got.count > 20)
        #expect(Set(got) == Set(expected))
        #expect(got.count == expected.count)
    }
}
