import ArgumentParser
import Foundation
import LocationCore
import RegionMonitoring
import SimulatorsCore

/// `gpsbench regions`: region monitoring's cost, for `scripts/bench.d/65-regions.py`. (1) 1,000
/// regions (half circles of 50 to 500 m, half polygons of 50 vertices) spread over 20 km by 20 km,
/// and a walk of jittered 1 Hz fixes through them: the time `RegionMonitor.process(_:)` takes per
/// fix (mean and 99th percentile), against the same regions evaluated one by one with no index
/// (each region's `signedDistance`, the floor of a monitor without one). (2) The resident memory a
/// monitor with 10,000 such regions adds to the process.
struct RegionsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "Time RegionMonitor per fix with 1,000 regions, and the memory of 10,000; print JSON.")

    @Option(help: "How many regions to watch for the time per fix.")
    var regions = 1_000

    @Option(help: "How many fixes to walk.")
    var fixes = 20_000

    @Option(help: "How many regions for the memory figure.")
    var memoryRegions = 10_000

    static let center = GeoCoordinate(latitude: 51.4779, longitude: -0.0015)

    static func conditions(_ count: Int, seed: UInt64) -> [RegionCondition] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { number in
            let spot = center.destination(bearing: Double.random(in: 0..<360, using: &random), distance: 10_000 * Double.random(in: 0...1, using: &random).squareRoot())
            let size = Double.random(in: 50...500, using: &random)
            if number.isMultiple(of: 2) {
                return .circle(try! CircularRegion(center: spot, radius: size))
            }
            // A 50-vertex star-ish polygon: concave, so no shortcut of a convex test applies.
            let ring = (0..<50).map { vertex in
                spot.destination(bearing: Double(vertex) * 360 / 50, distance: vertex.isMultiple(of: 2) ? size : size * 0.6)
            }
            return .polygon(try! PolygonalRegion([GeoPolygon(exterior: ring)]))
        }
    }

    func run() async throws {
        let conditions = Self.conditions(regions, seed: 1)
        let monitor = RegionMonitor()
        for (index, condition) in conditions.enumerated() { monitor.add(condition, identifier: "r\(index)") }
        var random = SeededRandom(seed: 2)
        var position = Self.center
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let walk: [Location] = (0..<fixes).map { second in
            if second % 120 == 0 { position = Self.center.destination(bearing: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...9000, using: &random)) }
            position = position.destination(bearing: Double(second / 300) * 37, distance: 4)
            let jittered = position.destination(bearing: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...8, using: &random))
            let time = start.addingTimeInterval(Double(second))
            return Location(latitude: jittered.latitude, longitude: jittered.longitude, horizontalAccuracy: 8, time: time, receivedAt: time)
        }
        let clock = ContinuousClock()
        var durations: [Double] = []
        durations.reserveCapacity(fixes)
        var events = 0
        for fix in walk {
            let before = clock.now
            events += monitor.process(fix).count
            durations.append((clock.now - before).seconds)
        }
        durations.sort()
        let mean = durations.reduce(0, +) / Double(durations.count)
        let p99 = durations[Int(Double(durations.count - 1) * 0.99)]
        // The floor without an index: every region's distance at every fix.
        let bruteStart = clock.now
        var checksum = 0.0
        let bruteFixes = min(fixes, 2_000)
        for fix in walk.prefix(bruteFixes) {
            let point = GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude)
            for condition in conditions { checksum += condition.signedDistance(from: point) ?? 0 }
        }
        let brute = (clock.now - bruteStart).seconds / Double(bruteFixes)

        let baseline = Self.residentBytes()
        let big = RegionMonitor()
        for (index, condition) in Self.conditions(memoryRegions, seed: 3).enumerated() { big.add(condition, identifier: "m\(index)") }
        big.process(walk[0])
        let resident = Self.residentBytes() - baseline
        print(#"{"regions":\#(regions),"fixes":\#(fixes),"events":\#(events),"mean_seconds":\#(mean),"p99_seconds":\#(p99),"#
            + #""brute_seconds":\#(brute),"checksum":\#(checksum),"memory_regions":\#(memoryRegions),"memory_bytes":\#(resident),"#
            + #""watched":\#(big.identifiers.count)}"#)
    }

    /// VmRSS of this process, in bytes (each bench's memory figure).
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ")[1]) ?? 0) * 1024
        }
        return 0
    }
}

extension Duration {
    /// The duration in seconds, for the benches' JSON.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
