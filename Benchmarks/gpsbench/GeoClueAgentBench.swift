import ArgumentParser
import DBus
import GeoClue
#if canImport(Glibc)
import Glibc
#endif

/// `gpsbench geoclue-agent --bus ADDRESS`: a GeoClue agent allowing everything, for
/// `scripts/bench.d/25-geoclue-once.py`, which runs the real GeoClue on a private bus: prints
/// `registered` once GeoClue has taken it, then serves until killed.
struct GeoClueAgentBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geoclue-agent",
        abstract: "Register a GeoClue agent on a bus and serve until killed.")

    @Option(help: "The D-Bus address of the bus GeoClue is on.")
    var bus: String

    func run() async throws {
        let agent = try await GeoClueAgent(bus: .address(bus))
        guard await agent.waitUntilRegistered() else { throw ExitCode(69) }
        // Unbuffered, so that the script reading our pipe sees it at once.
        _ = "registered\n".withCString { write(1, $0, strlen($0)) }
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3600))
        }
        withExtendedLifetime(agent) {}
    }
}
