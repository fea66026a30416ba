import Foundation

/// Garmin's FIT decoder (PyPI `garmin-fit-sdk`) and `fitdecode`, run on files by
/// `scripts/peers/fit_peers.py` in the venv `scripts/install-fit-peers` makes (`.cache/fit-peers`,
/// or the python in `FIT_PEERS_PYTHON`): what each read, for tests that compare our decoder with them.
public enum FITPeers {
    /// The python with both peers installed, if there is one.
    public static let python = Repository.peersPython("FIT_PEERS_PYTHON", venv: "fit-peers")

    /// Whether the peers can be run.
    public static var isAvailable: Bool { python != nil }

    /// Why a test that needs the peers skipped.
    public static let missing = "the FIT peers (garmin-fit-sdk, fitdecode) are not installed: run scripts/install-fit-peers"

    /// What one peer read in one file.
    public struct Reading: Sendable, Decodable {
        /// `[time, lat, lon, heart_rate, cadence, power, altitude, speed, temperature]`: FIT seconds,
        /// semicircles, cadence with its fraction, enhanced altitude and speed when given.
        public var records: [[Double?]]
        /// `[start, end, timer_time, distance, lap_trigger]`.
        public var laps: [[Double?]]
        /// `[start, end, timer_time, distance, sport]`.
        public var sessions: [[Double?]]
        /// `[time, event_type, timer_trigger]` of the timer events.
        public var timerEvents: [[Double?]]
        /// The `file_id` types, one per file of a chain.
        public var fileTypes: [Double?]
        /// Garmin's errors (empty when none).
        public var errors: [String]?
        /// Garmin's integrity check (header, size and CRC).
        public var integrity: Bool?
        /// What stopped fitdecode, if anything.
        public var error: String?
        /// Every beat-to-beat interval of the `hrv` messages, seconds, in order.
        public var hrv: [Double]
        /// The first session's developer fields as text: by number (Garmin's decoder), or by the
        /// name their `field_description` gives (fitdecode).
        public var sessionDeveloper: [String: String]
        /// The first timer start's developer fields, the same way.
        public var startDeveloper: [String: String]
        /// `[sport, sub_sport]` of each session.
        public var sessionSports: [[Double?]]
        /// Each record's `distance` (metres), `nil` where it has none.
        public var recordDistances: [Double?]

        enum CodingKeys: String, CodingKey {
            case records, laps, sessions, errors, integrity, error, hrv
            case sessionSports = "session_sports"
            case recordDistances = "record_distances"
            case timerEvents = "timer_events"
            case fileTypes = "file_types"
            case startDeveloper = "start_developer"
            case sessionDeveloper = "session_developer"
        }
    }

    /// Both peers' readings of one file.
    public struct Readings: Sendable, Decodable {
        public var file: String
        public var garmin: Reading
        public var fitdecode: Reading
    }

    /// Reads `paths` with both peers (one python process for all).
    public static func read(_ paths: [String]) async throws -> [String: Readings] {
        guard let python else { throw PeerError(description: missing) }
        let result = try await Command.run(python, [Repository.root.appendingPathComponent("scripts/peers/fit_peers.py").path] + paths)
        guard result.status == 0 else {
            throw PeerError(description: "fit_peers.py exited with \(result.status)")
        }
        var readings: [String: Readings] = [:]
        for line in result.output.split(separator: UInt8(ascii: "\n")) {
            let reading = try JSONDecoder().decode(Readings.self, from: Data(line))
            readings[reading.file] = reading
        }
        return readings
    }

    /// A peer could not be run.
    public struct PeerError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }
}
