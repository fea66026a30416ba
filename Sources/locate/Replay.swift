import ArgumentParser
import Foundation
import LocationFacade
import Simulators

struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a recorded gpsd log as a fake gpsd, for any gpsd client to watch.",
        discussion: """
            FILE is a gpsd JSON log as `gpspipe -w` writes it. The fake gpsd listens on 127.0.0.1 \
            and prints its address (127.0.0.1:PORT) on standard output once it is ready. The log \
            plays from the first client's WATCH; every fix it serves is marked simulated.
            """)

    @Argument(help: "The gpsd JSON log to serve.", completion: .file())
    var file: String

    @Option(help: "The TCP port to listen on; 0 picks a free one.")
    var port: UInt16 = GPSDAddress.defaultPort

    @Option(help: "Play the log this many times faster than it was recorded.")
    var speed: Double = 1

    @Flag(help: "Ignore the recorded pace and send as fast as the clients read.")
    var fast = false

    @Flag(help: "Exit once the whole log has been sent, instead of serving until interrupted.")
    var exitWhenDone = false

    func validate() throws {
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, not \(speed).") }
    }

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            Output.error("locate replay: cannot read \(file): no such readable file.")
            throw ExitCode(66)
        }
        let script: GPSDScript
        do {
            script = try GPSDScript(contentsOf: url)
        } catch let error as GPSDScript.ReadError {
            Output.error("locate replay: \(error)")
            throw ExitCode(65)
        }
        let server = FakeGPSDServer(script: script, pace: fast ? .asFastAsClientsRead : .recorded(speed: speed), port: port)
        let boundPort: UInt16
        do {
            boundPort = try server.start()
        } catch {
            Output.error("locate replay: \(error) Is gpsd (or another replay) using it? Pass --port.")
            throw ExitCode(69)
        }
        Output.error("locate replay: serving \(file) (\(script.tpvCount) TPV reports) as a fake gpsd on 127.0.0.1:\(boundPort)")
        Output.line("127.0.0.1:\(boundPort)")
        if exitWhenDone {
            await server.waitUntilFinished()
            server.shutdown()
            return
        }
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3600))
        }
    }
}
