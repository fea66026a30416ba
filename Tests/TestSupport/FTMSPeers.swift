import Foundation

/// pycycling and pyftms (PyPI), which read Fitness Machine Service values and build control-point
/// requests, and bluetooth-sig (PyPI), which reads an RSC Measurement, run by
/// `scripts/peers/ftms_peers.py` in the venv of ``BLEPeers`` (`scripts/install-ble-peers`):
/// peers we did not write, for the tests that hold BluetoothGATT's decoders and encoders to them.
public enum FTMSPeers {
    /// The venv's python, when it has pycycling and bluetooth-sig.
    public static let python: String? = BLEPeers.python.flatMap { python in
        let venv = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent()
        let packages = ["pycycling", "bluetooth_sig"]
        return packages.allSatisfy { hasPackage($0, in: venv) } ? python : nil
    }

    /// Whether pycycling and bluetooth-sig can be run.
    public static var isAvailable: Bool { python != nil }

    /// Whether pyftms is there too (it needs Python 3.12; `scripts/install-ble-peers` leaves it
    /// out of a venv made with an older one).
    public static let hasPyFTMS: Bool = BLEPeers.python.map { python in
        hasPackage("pyftms", in: URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent())
    } ?? false

    /// Why a test that needs the peers skipped.
    public static let missing = "pycycling and bluetooth-sig are not installed: run scripts/install-ble-peers"

    /// Why a test that needs pyftms skipped.
    public static let missingPyFTMS = "pyftms is not installed (it needs Python 3.12 or later): run scripts/install-ble-peers"

    /// Each request's answer, in order, from one run of the script: a request is
    /// `["read": KIND, "hex": ...]` or `["build": PEER, "op": NAME, "value": ...]`, and an answer
    /// has a key per peer (see the script's comment).
    public static func ask(_ requests: [[String: Any]]) async throws -> [[String: Any]] {
        guard let python else { throw FITPeers.PeerError(description: missing) }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("ftms-peers-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: input) }
        let lines = try requests.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let result = try await Command.run(python, [BLEPeers.script("ftms_peers.py")], standardInput: input.path)
        guard result.status == 0 else {
            throw FITPeers.PeerError(description: "ftms_peers.py exited with \(result.status): \(result.error.suffix(5).joined(separator: "\n"))")
        }
        let answers = try result.output.split(separator: UInt8(ascii: "\n")).map { line in
            try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] ?? [:]
        }
        guard answers.count == requests.count else {
            throw FITPeers.PeerError(description: "ftms_peers.py answered \(answers.count) of \(requests.count) requests")
        }
        return answers
    }

    private static func hasPackage(_ name: String, in venv: URL) -> Bool {
        let lib = venv.appendingPathComponent("lib")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        return versions.contains { FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/site-packages/\(name)").path) }
    }
}
