import Foundation

/// gpxpy (PyPI), run on GPX files by `scripts/peers/gpx_peers.py` in the venv of the FIT peers
/// (`scripts/install-fit-peers` installs it there): what it reads, for tests that hold our GPX
/// export to a reader we did not write.
public enum GPXPeers {
    /// Why a test that needs gpxpy skipped.
    public static let missing = "gpxpy is not installed: run scripts/install-fit-peers"

    /// Whether gpxpy can be run (the FIT peers' python has it).
    public static let isAvailable: Bool = {
        guard let python = FITPeers.python else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import gpxpy"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// One track as gpxpy reads it.
    public struct Track: Sendable, Decodable {
        /// The point count of each segment.
        public var segments: [Int]
        /// gpxpy's `length_2d()`: metres, haversine within segments.
        public var length2D: Double
        /// gpxpy's moving time, seconds.
        public var movingTime: Double?
        /// The TrackPointExtension heart rate of each point, in order (`nil` where it has none).
        public var heartRates: [Double?]

        enum CodingKeys: String, CodingKey {
            case segments
            case length2D = "length_2d"
            case movingTime = "moving_time"
            case heartRates = "heart_rates"
        }
    }

    /// What gpxpy read in one file, or why it could not.
    public struct Reading: Sendable, Decodable {
        public var file: String
        public var tracks: [Track]?
        public var error: String?
    }

    /// Reads `paths` with gpxpy (one python process for all).
    public static func read(_ paths: [String]) async throws -> [String: Reading] {
        guard let python = FITPeers.python else { throw FITPeers.PeerError(description: missing) }
        let result = try await Command.run(python, [Repository.root.appendingPathComponent("scripts/peers/gpx_peers.py").path] + paths)
        guard result.status == 0 else {
            throw FITPeers.PeerError(description: "gpx_peers.py exited with \(result.status)")
        }
        var readings: [String: Reading] = [:]
        for line in result.output.split(separator: UInt8(ascii: "\n")) {
            let reading = try JSONDecoder().decode(Reading.self, from: Data(line))
            readings[reading.file] = reading
        }
        return readings
    }
}
