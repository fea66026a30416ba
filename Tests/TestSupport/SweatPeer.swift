import Foundation

/// sweat (PyPI), the training-figures peer, run by `scripts/peers/sweat_peer.py` in the venv
/// `scripts/install-sweat-peer` makes (`.cache/sweat-peer`, or the python in `SWEAT_PEER_PYTHON`):
/// its normalized power, intensity factor, training stress score and time in zones of the same
/// samples or FIT file, for tests that hold ours to it.
public enum SweatPeer {
    /// The python with sweat installed, if there is one.
    public static let python = Repository.peersPython("SWEAT_PEER_PYTHON", venv: "sweat-peer")

    /// Whether the peer can be run.
    public static var isAvailable: Bool { python != nil }

    /// Why a test that needs the peer skipped.
    public static let missing = "sweat is not installed: run scripts/install-sweat-peer"

    /// What to measure: samples (`[time, value]`, seconds), or a FIT file sweat reads itself.
    public struct Case: Sendable, Encodable {
        public var name: String
        public var ftp: Double?
        public var maxHeartRate: Double?
        public var power: [[Double]]?
        public var heartRate: [[Double]]?
        /// Whether sweat resamples the samples to 1 Hz itself (else they are one a second already).
        public var resample: Bool
        public var fit: String?

        public init(
            name: String, ftp: Double?, maxHeartRate: Double? = nil, power: [[Double]]? = nil, heartRate: [[Double]]? = nil,
            resample: Bool = false, fit: String? = nil
        ) {
            self.name = name
            self.ftp = ftp
            self.maxHeartRate = maxHeartRate
            self.power = power
            self.heartRate = heartRate
            self.resample = resample
            self.fit = fit
        }

        enum CodingKeys: String, CodingKey {
            case name, ftp, power, resample, fit
            case maxHeartRate = "max_hr"
            case heartRate = "heart_rate"
        }
    }

    /// What sweat worked out.
    public struct Answer: Sendable, Decodable {
        public var name: String
        /// Seconds of the power series.
        public var seconds: Double?
        public var normalizedPower: Double?
        public var intensityFactor: Double?
        public var trainingStressScore: Double?
        public var work: Double?
        public var powerZones: [Double]?
        public var heartRateSeconds: Double?
        public var heartRateZones: [Double]?
        /// A FIT session's own figures, as fitparse reads them.
        public var device: [String: Double?]?

        enum CodingKeys: String, CodingKey {
            case name, seconds, device
            case normalizedPower = "np"
            case intensityFactor = "if"
            case trainingStressScore = "tss"
            case work = "work_kj"
            case powerZones = "power_zones"
            case heartRateSeconds = "hr_seconds"
            case heartRateZones = "hr_zones"
        }
    }

    /// Runs sweat on `cases` (one python process for all).
    public static func measure(_ cases: [Case]) async throws -> [String: Answer] {
        guard let python else { throw FITPeers.PeerError(description: missing) }
        let lines = try cases.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("sweat-\(UUID()).jsonl")
        try Data(lines.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }   // a temporary file: nothing to say if it is gone
        let result = try await Command.run(
            python, [Repository.root.appendingPathComponent("scripts/peers/sweat_peer.py").path], standardInput: input.path)
        guard result.status == 0 else {
            throw FITPeers.PeerError(description: "sweat_peer.py exited with \(result.status): \(result.error.suffix(20).joined(separator: "\n"))")
        }
        var answers: [String: Answer] = [:]
        for line in result.output.split(separator: UInt8(ascii: "\n")) {
            let answer = try JSONDecoder().decode(Answer.self, from: Data(line))
            answers[answer.name] = answer
        }
        return answers
    }
}
