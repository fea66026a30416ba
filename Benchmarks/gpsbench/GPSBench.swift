import ArgumentParser

/// `gpsbench`: the Swift side of `scripts/bench`, one subcommand per benchmark family. Build it
/// with `-c release`; each subcommand prints what it measured as one JSON object per line.
@main
struct GPSBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpsbench",
        abstract: "Measurements for scripts/bench (run it instead: it compares against peers).",
        subcommands: [WorkoutStoreBench.self, GPXReadBench.self, FITReadBench.self, ReplayDayBench.self, SessionBench.self, GeoClueAgentBench.self, FakeBlueZBench.self, SensorPathBench.self, SensorReadBench.self, TrainerCommandsBench.self, GATTDecodeBench.self, PublishBench.self, RegionsBench.self, NavigationBench.self]
    )
}
