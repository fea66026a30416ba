import Foundation
import GPX
import RegionMonitoring
import Testing
import TestSupport

/// Our polygon containment against shapely's, on the same GeoJSON, for the track points of the
/// public GPX corpus (`../shared/corpora/gpx` beside the repository: CI has it, a fresh clone may
/// not, and the test then says that it skipped).
@Suite("Polygon containment against shapely", .tags(.childProcess, .corpus),
       .disabled(if: ThreadSanitizer.isRunning, "geometry on one thread: the plain run checks it"))
struct ShapelyTests {
    static let corpus = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/gpx")
    static let hasCorpus = FileManager.default.fileExists(atPath: corpus.path)

    /// Every track point of every GPX file in the corpus that our reader reads, by file.
    static func corpusTracks() -> [(file: String, points: [GeoCoordinate])] {
        let files = FileManager.default.enumerator(atPath: corpus.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".gpx") || $0.hasSuffix(".gpx.gz") }.sorted() ?? []
        return files.compactMap { name in
            var points: [GeoCoordinate] = []
            _ = try? GPXReader().read(fileAt: corpus.appendingPathComponent(name).path) { event in
                if case let .trackPoint(point) = event {
                    let coordinate = GeoCoordinate(latitude: point.latitude, longitude: point.longitude)
                    if coordinate.isValid { points.append(coordinate) }
                }
            }
            return points.count >= 3 ? (name, points) : nil
        }
    }

    /// A ring of `count` vertices round `center`, `radius(i)` degrees out at vertex i, as GeoJSON positions.
    static func ring(_ center: GeoCoordinate, count: Int, clockwise: Bool = false, radius: (Int) -> Double) -> [[Double]] {
        var ring = (0..<count).map { index -> [Double] in
            let angle = Double(index) / Double(count) * 2 * .pi * (clockwise ? -1 : 1)
            let r = radius(index)
            return [center.longitude + r * cos(angle) * 1.5, center.latitude + r * sin(angle)]
        }
        ring.append(ring[0])
        return ring
    }

    static func json(_ value: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value), as: UTF8.self)
    }

    /// The areas the test makes round a track: convex, concave, with holes, multi-part, sized to
    /// the track so that its points fall both in and out.
    static func areas(for points: [GeoCoordinate]) -> [String: String] {
        let box = GeoBoundingBox(covering: points)
        let center = GeoCoordinate(latitude: (box.minLatitude + box.maxLatitude) / 2, longitude: (box.minLongitude + box.maxLongitude) / 2)
        let size = max(box.maxLatitude - box.minLatitude, (box.maxLongitude - box.minLongitude) / 1.5, 1e-4) / 2
        let convex = ring(center, count: 7) { _ in size * 0.7 }
        let concave = ring(center, count: 24) { $0.isMultiple(of: 2) ? size * 0.9 : size * 0.35 }
        let outer = ring(center, count: 40) { _ in size }
        let hole1 = ring(GeoCoordinate(latitude: center.latitude, longitude: center.longitude - size * 0.6), count: 12, clockwise: true) { _ in size * 0.3 }
        let hole2 = ring(GeoCoordinate(latitude: center.latitude + size * 0.5, longitude: center.longitude + size * 0.6), count: 9, clockwise: true) { $0.isMultiple(of: 3) ? size * 0.2 : size * 0.12 }
        let west = ring(GeoCoordinate(latitude: center.latitude, longitude: center.longitude - size * 0.8), count: 16) { $0.isMultiple(of: 4) ? size * 0.45 : size * 0.3 }
        let east = ring(GeoCoordinate(latitude: center.latitude - size * 0.2, longitude: center.longitude + size * 0.9), count: 5) { _ in size * 0.4 }
        return [
            "convex": json(["type": "Polygon", "coordinates": [convex]]),
            "concave": json(["type": "Feature", "properties": [:] as [String: Any], "geometry": ["type": "Polygon", "coordinates": [concave]]]),
            "holes": json(["type": "Polygon", "coordinates": [outer, hole1, hole2]]),
            "multi": json([
                "type": "FeatureCollection",
                "features": [
                    ["type": "Feature", "properties": NSNull(), "geometry": ["type": "MultiPolygon", "coordinates": [[west], [east]]]],
                    ["type": "Feature", "properties": NSNull(), "geometry": ["type": "Point", "coordinates": [0, 0]]],
                ],
            ]),
        ]
    }

    @Test(
        .enabled(if: GeoPeers.isAvailable, "\(GeoPeers.missing)"),
        .enabled(if: hasCorpus, "the GPX corpus is not at ../shared/corpora/gpx"))
    func corpusTrackPointsInPolygons() async throws {
        let tracks = Self.corpusTracks()
        #expect(tracks.count >= 10)
        var compared = 0
        var inside = 0
        let cases = tracks.map { GeoPeers.Case(areas: Self.areas(for: $0.points), points: $0.points.map { [$0.longitude, $0.latitude] }) }
        let answers = try await GeoPeers.contains(cases)
        try #require(answers.count == cases.count)
        for ((file, points), (question, peer)) in zip(tracks, zip(cases, answers)) {
            for (name, text) in question.areas {
                let area = try GeoJSON.polygonalRegion(data: Array(text.utf8), name: "\(file) \(name)")
                let theirs = try #require(peer[name])
                var disagreements: [String] = []
                for (index, point) in points.enumerated() {
                    // A point on an edge (within a millimetre) may go either way in any planar test.
                    guard abs(area.signedDistance(from: point)) > 0.001 else { continue }
                    compared += 1
                    let ours = area.contains(point)
                    if ours { inside += 1 }
                    if ours != theirs[index] { disagreements.append("point \(index) \(point): ours \(ours), shapely \(theirs[index])") }
                }
                #expect(disagreements.isEmpty, "\(file) \(name): \(disagreements.prefix(5))")
            }
        }
        // Both answers must be common, or the comparison says little.
        #expect(compared > 10_000)
        #expect(inside > compared / 10 && inside < compared * 9 / 10, "\(inside) of \(compared) inside")
    }
}
