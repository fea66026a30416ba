import ArgumentParser
import Logging

/// `locate`: one line to get a position from gpsd, and the tools around it.
@main
struct Locate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Get positions from gpsd, or serve recorded ones as a fake gpsd.",
        discussion: """
            Exit codes follow sysexits: 0 success, 64 usage, 65 bad input data, 66 missing input, \
            69 gpsd unavailable, 73 cannot create the output file, 75 timed out.
            """,
        subcommands: [Once.self, Watch.self, Replay.self, Record.self]
    )

    /// Sends the library's log to standard error, warnings and worse only, so that standard
    /// output carries nothing but what the command prints.
    static func main() async {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
