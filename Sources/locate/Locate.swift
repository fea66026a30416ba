import ArgumentParser

/// `locate`: one line to get a position from gpsd, and the tools around it.
@main
struct Locate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Get positions from gpsd, or serve recorded ones as a fake gpsd.",
        discussion: """
            Exit codes follow sysexits: 0 success, 64 usage, 65 bad input data, 66 missing input, \
            69 gpsd unavailable, 75 timed out.
            """,
        subcommands: [Watch.self, Replay.self]
    )
}
