import ArgumentParser
import CommandSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocateOptions
import LocationFacade
import Simulators

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record what gpsd sends into a replay log.",
        discussion: """
            Writes every report gpsd sends a watching client, one JSON object per line (as \
            `gpspipe -w` does), until --duration is up, gpsd goes away, or Ctrl-C. `locate replay` \
            and the replay device read the file back at its recorded pace. Prints a one-line \
            summary on standard error. Exits \(ExitStatus.unavailable.rawValue) when gpsd cannot be reached.
            """)

    @OptionGroup var serverOptions: ServerOptions

    @Option(name: .shortAndLong, help: "The file to write (replaced if it exists).", completion: .file())
    var output: String

    @Option(parsing: .unconditional, help: "Stop after this many seconds.")
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration must be a positive number of seconds, not \(duration).")
        }
    }

    func run() async throws {
        let address = try serverOptions.address()
        let recorder = GPSDLogRecorder(host: address.host, port: address.port, device: address.device)
        let url = URL(fileURLWithPath: output)
        let limit = duration.map { Duration.milliseconds(Int64($0 * 1000)) }
        do {
            let summary = try await Interrupts.cancelling { try await recorder.record(to: url, duration: limit) }
            let ending = summary.serverClosed ? " (gpsd closed the connection)" : ""
            Output.error("locate record: wrote \(summary.reports) reports (\(summary.fixes) fixes) to \(output)\(ending)")
        } catch let error as LocationError {
            Output.error("locate record: \(error)")
            throw ExitCode(.unavailable)
        } catch let error as FileDescriptorOutput.Failure {
            Output.error("locate record: \(error).")
            throw ExitCode(.cannotCreate)
        }
    }
}
