import Foundation

/// shapely (PyPI), run by `scripts/peers/geo_peers.py` in the venv `scripts/install-geo-peers`
/// makes (`.cache/geo-peers`, or the python in `GEO_PEERS_PYTHON`): whether points are inside
/// GeoJSON areas, for tests that compare RegionMonitoring's containment with it.
public enum GeoPeers {
    /// The python with shapely installed, if there is one.
    public static let python = Repository.peersPython("GEO_PEERS_PYTHON", venv: "geo-peers")

    /// Whether the peer can be run.
    public static var isAvailable: Bool { python != nil }

    /// Why a test that needs the peer skipped.
    public static let missing = "shapely is not installed: run scripts/install-geo-peers (or set GEO_PEERS_PYTHON)"

    /// One question: areas (GeoJSON text by name) and points (`[longitude, latitude]`).
    public struct Case: Sendable {
        public var areas: [String: String]
        public var points: [[Double]]

        public init(areas: [String: String], points: [[Double]]) {
            self.areas = areas
            self.points = points
        }
    }

    /// For each case, for each of its areas, whether shapely finds each of its points inside it
    /// (one python process for all).
    public static func contains(_ cases: [Case]) async throws -> [[String: [Bool]]] {
        guard let python else { throw FITPeers.PeerError(description: missing) }
        var request: [Any] = []
        for item in cases {
            var parsed: [String: Any] = [:]
            for (name, text) in item.areas { parsed[name] = try JSONSerialization.jsonObject(with: Data(text.utf8)) }
            request.append(["areas": parsed, "points": item.points] as [String: Any])
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("geo-peers-\(UUID()).json")
        try JSONSerialization.data(withJSONObject: request).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Command.run(python, [Repository.root.appendingPathComponent("scripts/peers/geo_peers.py").path, file.path])
        guard result.status == 0 else {
            throw FITPeers.PeerError(description: "geo_peers.py exited with \(result.status): \(result.error.suffix(5).joined(separator: "\n"))")
        }
        return try JSONDecoder().decode([[String: [Bool]]].self, from: result.output)
    }
}
