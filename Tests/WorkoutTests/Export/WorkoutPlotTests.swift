import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
@testable import Workout

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("WorkoutPlot draws a workout as a small, well-formed SVG")
struct WorkoutPlotTests {
    @Test func theFixtureIsDrawnWithATitleALinePerSegmentAndBothCharts() async throws {
        let (store, fixture) = try await ExportFixture.store()
        let svg = try await store.plotSVG(of: fixture.workout.id)
        let document = try Self.parse(svg)
        let root = try #require(document.rootElement())
        #expect(root.name == "svg" && Self.attribute(root, "width") == "960")

        let title = try #require(try document.nodes(forXPath: "/*[local-name()='svg']/*[local-name()='title']").first?.stringValue)
        #expect(title == "\(ExportFixture.name) · Running · 2024-05-01 10:00 UTC · 0.12 km · 0:02:00")
        #expect(try Self.elements(document, "polyline", className: "route").count == 2)
        #expect(try Self.elements(document, "circle", className: "start").count == 1)
        #expect(try Self.elements(document, "circle", className: "end").count == 1)
        #expect(try Self.elements(document, "polyline", className: "series").count >= 2, "elevation and heart rate")
        #expect(try Self.elements(document, "text", className: "no-data").isEmpty)
        // Axes carry labelled ticks: elapsed time, metres and bpm.
        let labels = try document.nodes(forXPath: "//*[local-name()='text']").compactMap(\.stringValue)
        #expect(labels.contains("0:00") && labels.contains("0:02"))
        #expect(labels.contains("Elevation (m)") && labels.contains("Heart rate (bpm)"))
        #expect(labels.contains("120") && labels.contains("130"), "bpm ticks around 120...128: \(labels)")
    }

    @Test func missingHeartRateAndElevationAreSaidNotLeftBlank() async throws {
        let store = try WorkoutStore.inMemory()
        let run = workout(seconds: 600, startingAt: ExportFixture.start)
        let route = fixes(300, from: ExportFixture.start).map { fix in
            var fix = fix
            fix.altitude = nil
            return fix
        }
        try await store.saveWorkout(run, route: route)
        let document = try Self.parse(try await store.plotSVG(of: run.id))
        let messages = try Self.elements(document, "text", className: "no-data").compactMap(\.stringValue)
        #expect(messages == ["no elevation data", "no heart rate data"])
        #expect(try Self.elements(document, "polyline", className: "route").count == 1)
    }

    @Test func aWorkoutWithoutRouteSaysSo() {
        let plot = WorkoutPlot(workout: workout(seconds: 60, startingAt: ExportFixture.start))
        let svg = plot.svg()
        #expect(svg.contains(">no route data</text>"))
        #expect(svg.contains(">no heart rate data</text>"))
    }

    @Test func anUnknownWorkoutIsNotSaved() async throws {
        let store = try WorkoutStore.inMemory()
        let id = UUID()
        await #expect(throws: WorkoutStoreError.workoutNotSaved(workoutID: id, step: .export)) {
            _ = try await store.plotSVG(of: id)
        }
    }

    @Test func aStored200000PointRouteMakesAnSVGUnder300KB() async throws {
        let store = try WorkoutStore.inMemory()
        let count = 200_000
        let run = WorkoutRecord(
            activityType: .cycling, start: ExportFixture.start, end: ExportFixture.start.addingTimeInterval(Double(count)))
        let route = Self.wiggle(count, from: ExportFixture.start)
        let heartRate = stride(from: 0, to: count, by: 1).map {
            QuantitySample(type: .heartRate, value: 120 + Double($0 % 50), at: route[$0].time!)
        }
        try await store.saveWorkout(run, samples: heartRate) { writer in
            for start in stride(from: 0, to: count, by: 20_000) {
                try await writer.insertRouteData(Array(route[start..<(start + 20_000)]))
            }
        }
        let svg = try await store.plotSVG(of: run.id)
        #expect(svg.utf8.count < 300_000, "\(svg.utf8.count) bytes")
        let document = try Self.parse(svg)
        let route0 = try #require(try Self.elements(document, "polyline", className: "route").first)
        let drawn = Self.attribute(route0, "points")?.split(separator: " ").count ?? 0
        #expect(drawn > 1_000 && drawn <= WorkoutPlot.routeSlices + 2, "\(drawn) points drawn")
    }

    @Test func aMillionPointsStayUnder300KBAndKeepTheirPeaks() {
        let count = 1_000_000
        let start = ExportFixture.start
        var plot = WorkoutPlot(workout: WorkoutRecord(
            activityType: .running, start: start, end: start.addingTimeInterval(Double(count))))
        var batch: [RoutePoint] = []
        batch.reserveCapacity(10_000)
        for index in 0..<count {
            let time = start.addingTimeInterval(Double(index))
            let altitude = index == 654_321 ? 2_000 : 100 + sin(Double(index) / 5_000) * 50
            batch.append(RoutePoint(ordinal: index, segment: index < 500_000 ? 0 : 1, location: Location(
                latitude: 46 + Double(index) * 1e-7, longitude: 7 + sin(Double(index) / 20_000) * 0.05,
                altitude: altitude, time: time, receivedAt: time)))
            if batch.count == 10_000 {
                plot.add(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        let svg = plot.svg()
        #expect(svg.utf8.count < 300_000, "\(svg.utf8.count) bytes")
        #expect(svg.components(separatedBy: "class=\"route\"").count - 1 == 2)
        // The one-point spike survives the decimation and sets the axis.
        #expect(plot.elevation.maximum == 2_000)
        #expect(plot.elevation.lines().flatMap { $0 }.contains { $0.value == 2_000 })
        #expect(svg.contains(">2000</text>"))
    }

    @Test func ticksFallOnRoundValues() {
        #expect(PlotTicks.values(3.2, 47.9).ticks == [0, 10, 20, 30, 40, 50])
        #expect(PlotTicks.values(120, 128).ticks == [120, 122, 124, 126, 128])
        #expect(PlotTicks.values(80, 80).ticks == [74, 76, 78, 80, 82, 84, 86], "a flat series gets ±5")
        #expect(PlotTicks.times(duration: 3_600) == [0, 600, 1_200, 1_800, 2_400, 3_000, 3_600])
        #expect(PlotTicks.elapsed(5_400) == "1:30")
        #expect(PlotTicks.elapsed(0) == "0:00")
        #expect(WorkoutPlot.duration(3_725) == "1:02:05")
    }

    // MARK: - Helpers

    /// `count` fixes a second apart, wandering so that the map has a shape.
    static func wiggle(_ count: Int, from start: Date) -> [Location] {
        (0..<count).map { index in
            let time = start.addingTimeInterval(Double(index))
            return Location(
                latitude: 46 + Double(index) * 2e-6, longitude: 7 + sin(Double(index) / 5_000) * 0.02,
                altitude: 500 + cos(Double(index) / 7_000) * 80, time: time, receivedAt: time)
        }
    }

    static func parse(_ svg: String) throws -> XMLDocument {
        try XMLDocument(data: Data(svg.utf8), options: [])
    }

    static func attribute(_ element: XMLElement, _ name: String) -> String? {
        element.attributes?.first { $0.name == name || $0.localName == name }?.stringValue
    }

    static func elements(_ document: XMLDocument, _ name: String, className: String) throws -> [XMLElement] {
        try document.nodes(forXPath: "//*[local-name()='\(name)'][@class='\(className)']").compactMap { $0 as? XMLElement }
    }
}
