import Foundation

/// Paths in this repository, for tests.
public enum Repository {
    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file under `fixtures/`.
    public static func fixture(_ path: String) -> URL {
        root.appendingPathComponent("fixtures").appendingPathComponent(path)
    }

    /// The `locate` executable built beside the test runner.
    public static var locateExecutable: URL {
        builtExecutable("locate")
    }

    /// An executable of this package (`locate`, `workout-crash-writer`) built beside the test runner.
    public static func builtExecutable(_ name: String) -> URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/\(name)")
    }

    /// Whether a program is on the usual paths.
    public static func hasProgram(_ name: String) -> Bool {
        ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin"].contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }

    /// The python of a venv of peers that a `scripts/install-*-peers` script makes: the one the
    /// environment variable `variable` names (scripts/test sets it), else `.cache/VENV/bin/python3`;
    /// nil when neither can be run (the tests that need it then skip, saying so).
    public static func peersPython(_ variable: String, venv: String) -> String? {
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment[variable],
            root.appendingPathComponent(".cache/\(venv)/bin/python3").path,
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
