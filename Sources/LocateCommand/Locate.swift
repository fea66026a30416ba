import ArgumentParser
import CommandSupport
import LocateOptions
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
        subcommands: [Once.self, Watch.self, Replay.self, Record.self, Monitor.self, Follow.self, PublishHandoff.self]
    )

    /// Sends the library's log to standard error, warnings and worse only, so that standard
    /// output carries nothing but what the command prints.
    static func main() async {
        LoggingSystem.bootstrap { WarningLogHandler(label: $0) }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == PublishHandoff.configuration.commandName {
            PublishHandoff.handOver(Array(arguments.dropFirst()))
        }
        // `locate once` is what a status bar or a script runs again and again, so its start-up is
        // measured (scripts/bench once-latency). Its plain invocations are read without
        // ArgumentParser (Once+QuickParsing.swift says why). The others are parsed with `Once` as
        // the root (naming `locate` as its super-command): parsed from the root, ArgumentParser
        // would first try the arguments as a `--generate-completion-script` request and reflect
        // over every subcommand; this way it does only the work `once` needs, with the same
        // options, validation, help and messages.
        if arguments.first == Once.configuration.commandName {
            let onceArguments = Array(arguments.dropFirst())
            if let request = OnceRequest(quickParsing: onceArguments) {
                do {
                    try await request.run()
                } catch {
                    exit(Once.self, withError: error)
                }
            } else {
                await run(Once.self, onceArguments)
            }
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
            exit(root, withError: error)
        }
    }

    private static func exit(_ root: any ParsableCommand.Type, withError error: any Error) -> Never {
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
