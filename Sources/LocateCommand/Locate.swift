import ArgumentParser
import CommandSupport
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// `locate`: one line to get a position from gpsd, and the tools around it.
@main
struct Locate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Get positions from gpsd or GeoClue, or serve recorded ones as a fake gpsd.",
        discussion: ExitStatus.table,
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
        let arguments = Array(CommandLine.arguments.dropFirst())
        // `locate once` is what a status bar or a script runs again and again, so its start-up is
        // measured (scripts/bench once-latency). Parsed from the root, ArgumentParser first tries
        // the arguments as a `--generate-completion-script` request and reflects over every
        // subcommand: about a third of the command's CPU. Parsed with `Once` as the root (naming
        // `locate` as its super-command, which also skips the completion-script check that only
        // the root offers), it does only the work `once` needs: the same options, validation,
        // help and messages.
        if arguments.first == Once.configuration.commandName {
            await run(Once.self, Array(arguments.dropFirst()))
        } else {
            await run(Self.self, arguments)
        }
    }

    private static func run(_ root: any ParsableCommand.Type, _ arguments: [String]) async {
        do {
            var command = try root.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard root != Self.self else { exit(withError: error) }
            // As `exit(withError:)`, but ArgumentParser's hint names a command that has a
            // super-command by its own name alone ("See 'once --help'"): name it in full.
            let code = root.exitCode(for: error)
            let text = root.fullMessage(for: error).replacing(
                "See '\(Once.configuration.commandName ?? "once") ", with: "See 'locate \(Once.configuration.commandName ?? "once") ")
            if !text.isEmpty {
                if code == .success { Output.line(text) } else { Output.error(text) }
            }
            Glibc.exit(code.rawValue)
        }
    }
}
