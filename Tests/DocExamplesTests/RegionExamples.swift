import Foundation
import LocationCore
import LocationFacade
import RegionMonitoring
import Testing

// The examples of RegionMonitoring, as printed in its `///` comments and its DocC catalog, in
// functions that give them what they name.

enum RegionExamples {
    // RegionMonitoring/Geometry/GeoCoordinate.swift
    static func destination() -> GeoCoordinate {
        let anchor = GeoCoordinate(latitude: 50.0, longitude: -4.0).destination(bearing: 90, distance: 30)
        return anchor
    }

    // RegionMonitoring/GeoJSON/GeoJSON.swift
    static func geoJSON() throws -> PolygonalRegion {
        let park = try GeoJSON.polygonalRegion(contentsOf: "park.geojson")
        return park
    }

    // RegionMonitoring/Monitor/RegionMonitor.swift
    static func monitor(_ source: any LocationSource) async throws {
        let monitor = RegionMonitor()
        try monitor.add(.circle(center: GeoCoordinate(latitude: 51.4779, longitude: -0.0015), radius: 100), identifier: "observatory")
        let following = monitor.follow(source)
        for await event in monitor.events {
            print(event.identifier, event.kind, event.date)
        }
        following.cancel()
    }

    // RegionMonitoring/Monitor/RegionMonitor+Source.swift
    static func follow(_ monitor: RegionMonitor) async {
        let following = monitor.follow(GPSDClient())
        defer { following.cancel() }
        await Interrupted.wait()
    }

    // RegionMonitoring.docc/RegionMonitoring.md
    static func overview(_ fix: Location) throws {
        let monitor = RegionMonitor()
        let park = try GeoJSON.polygonalRegion(contentsOf: "park.geojson")
        monitor.add(.polygon(park), identifier: "park")
        monitor.add(try .circle(center: GeoCoordinate(latitude: 51.4779, longitude: -0.0015), radius: 100), identifier: "home")
        for event in monitor.process(fix) {
            print(event.identifier, event.kind, event.date)
        }
    }

    // RegionMonitoring/Anchor/AnchorAlarm.swift
    static func anchor(_ fix: Location, _ monitor: RegionMonitor) throws {
        let alarm = try AnchorAlarm(droppedAt: fix, swingRadius: AnchorAlarm.swingRadius(rode: 50, depth: 8))
        monitor.add(alarm.condition, identifier: "anchor", assuming: .satisfied)
        print(alarm.distance(from: fix), alarm.bearing(from: fix))   // metres, degrees to the anchor
    }

    // RegionMonitoring/Anchor/AnchorAlarm.swift
    @ExampleValues static func swingRadius() -> [Any] {
        AnchorAlarm.swingRadius(rode: 50, depth: 8)   // 49.4 + 10 m
    }
}

/// Stands for whatever a program does while it follows (here: nothing, until cancelled).
enum Interrupted {
    static func wait() async {
        let (stream, _) = AsyncStream.makeStream(of: Void.self)
        for await _ in stream {}
    }
}

@Suite("API reference examples: regions")
struct RegionExampleTests {
    @Test func theRegionExamplesGiveWhatTheySay() throws {
        let anchor = RegionExamples.destination()
        #expect(abs(GeoCoordinate(latitude: 50.0, longitude: -4.0).distance(to: anchor) - 30) < 0.001)
        let radius = try #require(RegionExamples.swingRadius().first as? Double)
        #expect(abs(radius - 59.36) < 0.01)
        let monitor = RegionMonitor()
        let fix = Location(latitude: 50.15, longitude: -5.06, horizontalAccuracy: 5, time: Date(timeIntervalSince1970: 0))
        try RegionExamples.anchor(fix, monitor)
        #expect(monitor.record(for: "anchor")?.state == .satisfied)
    }
}
