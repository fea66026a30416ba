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
import LocationFacade
import Simulators

struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve a recording as a gpsd, for any gpsd client (cgps, gpspipe, your program) to watch.",
        discussion: """
            FILE is a gpsd JSON log (as `gpspipe -w` or `locate record` writes it), an NMEA 0183 \
            log, or a GPX file (.gpx or .gpx.gz; its tracks, paced by their times). The format is \
            told from the content. Once ready, the address (127.0.0.1:PORT) is printed on standard \
            output.

            By default a fake gpsd built in serves it: the recording plays from the first client's \
            WATCH, every fix marked simulated. With --via-gpsd, real gpsd serves it instead, reading \
            a fake serial receiver (a pseudo-terminal) that writes the recording as NMEA sentences; \
            the receiver starts at once, as a real one would, whether or not a client watches.
            """)

    @Argument(help: "The gpsd JSON log, NMEA log or GPX file to serve.", completion: .file())
    var file: String

    @Option(help: "The TCP port to listen on; 0 picks a free one.")
    var port: UInt16 = GPSDAddress.defaultPort

    @Option(help: "Play the recording this many times faster than it was recorded.")
    var speed: Double = 1

    @Flag(help: "Start again after the end, with times moved on, until interrupted.")
    var loop = false

    @Flag(help: "Serve through real gpsd reading a fake NMEA serial device, instead of the fake gpsd.")
    var viaGpsd = false

    @Flag(help: "Ignore the recorded pace and send as fast as the clients read (fake gpsd only).")
    var fast = false

    @Flag(help: "Exit once the whole recording has been sent, instead of serving until interrupted.")
    var exitWhenDone = false

    func validate() throws {
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, not \(speed).") }
        if fast && viaGpsd { throw ValidationError("--fast needs the fake gpsd: a serial receiver has a pace of its own. Use --speed.") }
        if loop && exitWhenDone { throw ValidationError("--loop never ends: give either --loop or --exit-when-done.") }
    }

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            Output.error("locate replay: cannot read \(file): no such readable file.")
            throw ExitCode(.noInput)
        }
        let recording: ReplayRecording
        do {
            recording = try ReplayRecording(contentsOf: url)
        } catch {
            Output.error("locate replay: \(error)")
            throw ExitCode(.dataError)
        }
        if viaGpsd {
            try await serveThroughGPSD(recording)
        } else {
            try await serveFake(recording)
        }
    }

    private func serveFake(_ recording: ReplayRecording) async throws {
        let server = FakeGPSDServer(
            script: recording.script, pace: fast ? .asFastAsClientsRead : .recorded(speed: speed), loop: loop, port: port)
        let boundPort: UInt16
        do {
            boundPort = try server.start()
        } catch {
            Output.error("locate replay: \(error) Is gpsd (or another replay) using it? Pass --port.")
            throw ExitCode(.unavailable)
        }
        Output.error("locate replay: serving \(file) (\(recording.format.rawValue), \(recording.fixCount) fixes) as a fake gpsd on 127.0.0.1:\(boundPort)")
        Output.line("127.0.0.1:\(boundPort)")
        if exitWhenDone {
            await server.waitUntilFinished()
            server.shutdown()
            return
        }
        await Interrupts.wait()
    }

    private func serveThroughGPSD(_ recording: ReplayRecording) async throws {
        let device: FakeSerialDevice
        let gpsd: PrivateGPSD
        do {
            device = try FakeSerialDevice()
            gpsd = try await PrivateGPSD(devices: [device.path], port: port == 0 ? nil : port)
        } catch {
            Output.error("locate replay: \(error)")
            throw ExitCode(.unavailable)
        }
        defer { gpsd.stop() }
        Output.error("locate replay: serving \(file) (\(recording.format.rawValue), \(recording.nmea.epochs.count) NMEA epochs) through gpsd on 127.0.0.1:\(gpsd.port), reading \(device.path)")
        Output.line("127.0.0.1:\(gpsd.port)")
        let player = Task { try await device.play(recording.nmea, speed: speed, loop: loop) }
        if exitWhenDone {
            try await player.value
            return
        }
        await Interrupts.wait()
        player.cancel()
    }
}
