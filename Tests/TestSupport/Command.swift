import Foundation
import Simulators

/// A command run to its end without holding a thread while it runs.
///
/// Foundation's `Process.waitUntilExit()` and `readDataToEndOfFile()` block the calling thread.
/// On a Swift concurrency thread (there are two on this machine) a Python peer that took seconds
/// under load held one of the two for all that time, and the run's other tests waited behind it:
/// in-process tests on a virtual clock ran past their time limits. ``run(_:_:standardInput:environment:)``
/// awaits the child's end instead (``ChildProcess`` reaps and reads on threads of its own).
public enum Command {
    /// How a command ended.
    public struct Result: Sendable {
        /// Its exit status (128 + the signal for one killed by a signal).
        public var status: Int32
        /// Its standard output, whole.
        public var output: Data
        /// Its standard error, line by line.
        public var error: [String]

        /// The standard output as UTF-8 text.
        public var outputText: String { String(decoding: output, as: UTF8.self) }
    }

    /// Runs `executable` (looked up on `PATH` unless it holds a slash) with `arguments`, reading
    /// the file `standardInput` (or nothing), with `environment` added to this process's, and
    /// returns when it has ended. Its standard output goes to a file of its own and is read back
    /// whole (``ChildProcess`` reads output as lines, and cuts one past 64 KiB: a peer's JSON line
    /// for a long FIT file is longer).
    public static func run(
        _ executable: String, _ arguments: [String], standardInput: String? = nil, environment: [String: String] = [:]
    ) async throws -> Result {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = try ChildProcess(
            "/bin/sh", ["-c", #"exec "$0" "$@" <"$COMMAND_INPUT" >"$COMMAND_OUTPUT""#, executable] + arguments,
            environment: environment.merging(["COMMAND_INPUT": standardInput ?? "/dev/null", "COMMAND_OUTPUT": output.path]) { $1 })
        process.closeInput()
        let status = await process.waitUntilExit()
        return Result(status: status, output: (try? Data(contentsOf: output)) ?? Data(), error: process.lines(.error))
    }
}
