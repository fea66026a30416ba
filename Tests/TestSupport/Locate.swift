import Foundation
import Simulators

/// Runs the `locate` command built beside the test runner.
public enum Locate {
    /// Starts `locate` with `arguments`.
    package static func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(Repository.locateExecutable.path, arguments)
    }

    /// Runs `locate` with `arguments` to its end: exit status, standard output and error lines.
    package static func run(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
        let process = try start(arguments)
        let status = await process.waitUntilExit()
        return (status, process.lines(.output), process.lines(.error))
    }
}
