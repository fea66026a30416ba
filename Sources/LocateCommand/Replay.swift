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

            With --nmea-socket PATH, the recording is served as NMEA sentences on a Unix socket at \
            PATH instead, for GeoClue to read (`geoclue --nmea-socket PATH`), as it reads a phone \
            modem's GPS: the recording plays from the first reader's connection, and PATH is printed \
            on standard output.
            """)

    @Argument(help: "The gpsd JSON log, NMEA log or GPX file to serve.", completion: .file())
    var file: String

    @Option(parsing: .unconditional, help: "The TCP port to listen on; 0 picks a free one.")
    var port: Int = Int(GPSDAddress.defaultPort)

    @Option(parsing: .unconditional, help: "Play the recording this many times faster than it was recorded.")
    var speed: Double = 1

    @Flag(help: "Start again after the end, with times moved on, until interrupted.")
    var loop = false

    @Flag(help: "Serve through real gpsd reading a fake NMEA serial device, instead of the fake gpsd.")
    var viaGpsd = false

    @Flag(help: "Ignore the recorded pace and send as fast as the clients read (fake gpsd only).")
    var fast = false

    @Flag(help: "Exit once the whole recording has been sent, instead of serving until interrupted.")
    var exitWhenDone = false

    @Option(help: "Serve the recording as NMEA on a Unix socket at this path (for GeoClue), instead of as a gpsd.", completion: .file())
    var nmeaSocket: String?

    func validate() throws {
        guard UInt16(exactly: port) != nil else { throw ValidationError("--port must be a TCP port, 0 to 65535, not \(port).") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, not \(speed).") }
        if fast && viaGpsd { throw ValidationError("--fast needs the fake gpsd: a serial receiver has a pace of its own. Use --speed.") }
        if loop && exitWhenDone { throw ValidationError("--loop never ends: give either --loop or --exit-when-done.") }
        if nmeaSocket != nil, viaGpsd || fast {
            throw ValidationError("--nmea-socket serves the recording to GeoClue, at its recorded pace: drop --via-gpsd and --fast.")
        }
    }

    func run() async throws {
        // Caught from here, before the address says it is ready: a signal as soon as it is
        // printed ends the replay cleanly (it found the default action, which ended the process).
        let interrupts = Interrupts()
        var info = stat()
        guard stat(file, &info) == 0 else {
            Output.error("locate replay: cannot read \(file): \(String(cString: strerror(errno))).")
            throw ExitCode(.noInput)
        }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            Output.error("locate replay: \(file) is a folder: give a recording file (a gpsd JSON log, an NMEA log or a GPX file).")
            throw ExitCode(.noInput)
        }
        let recording: ReplayRecording
        do {
            recording = try ReplayRecording(contentsOf: URL(fileURLWithPath: file))
        } catch {
            Output.error("locate replay: \(error)")
            throw ExitCode(.dataError)
        }
        if let nmeaSocket {
            try await serveNMEASocket(recording, at: nmeaSocket, interrupts: interrupts)
        } else if viaGpsd {
            try await serveThroughGPSD(recording, interrupts: interrupts)
        } else {
            try await serveFake(recording, interrupts: interrupts)
        }
    }

    /// How serving ends: by a signal, or when the recording has been played (or could not be read on).
    private enum Ending: Sendable {
        case interrupted
        case played(ReplayRecording.ReadError?)
    }

    private func serveFake(_ recording: ReplayRecording, interrupts: Interrupts) async throws {
        let server = FakeGPSDServer(
            recording: recording, pace: fast ? .asFastAsClientsRead : .recorded(speed: speed), loop: loop, port: UInt16(port))
        let boundPort: UInt16
        do {
            boundPort = try server.start()
        } catch {
            Output.error("locate replay: \(error) Is gpsd (or another replay) using it? Pass --port.")
            throw ExitCode(.unavailable)
        }
        Output.error("locate replay: serving \(file) (\(recording.format.rawValue)) as a fake gpsd on 127.0.0.1:\(boundPort)")
        Output.line("127.0.0.1:\(boundPort)")
        defer { server.shutdown() }
        try await serve(interrupts) {
            await server.waitUntilFinished()
            return server.readError
        }
    }

    private func serveThroughGPSD(_ recording: ReplayRecording, interrupts: Interrupts) async throws {
        let device: FakeSerialDevice
        let gpsd: PrivateGPSD
        do {
            device = try FakeSerialDevice()
            gpsd = try await PrivateGPSD(devices: [device.path], port: port == 0 ? nil : UInt16(port))
        } catch {
            Output.error("locate replay: \(error)")
            throw ExitCode(.unavailable)
        }
        defer { gpsd.stop() }
        Output.error("locate replay: serving \(file) (\(recording.format.rawValue)) through gpsd on 127.0.0.1:\(gpsd.port), reading \(device.path)")
        Output.line("127.0.0.1:\(gpsd.port)")
        let (speed, loop) = (speed, loop)
        try await serve(interrupts) {
            do {
                try await device.play(recording, speed: speed, loop: loop)
                return nil
            } catch let error as ReplayRecording.ReadError {
                return error
            } catch {
                return nil
            }
        }
    }

    private func serveNMEASocket(_ recording: ReplayRecording, at path: String, interrupts: Interrupts) async throws {
        let receiver: NMEASocketServer
        do {
            receiver = try NMEASocketServer(path: path)
        } catch {
            Output.error("locate replay: \(error)")
            throw ExitCode(.cannotCreate)
        }
        defer { receiver.stop() }
        Output.error("locate replay: serving \(file) (\(recording.format.rawValue)) as NMEA on the Unix socket \(path)")
        Output.line(path)
        let (speed, loop) = (speed, loop)
        try await serve(interrupts) {
            guard await receiver.waitForReaders(1) else { return nil }
            do {
                try await receiver.play(recording, speed: speed, loop: loop)
                return nil
            } catch let error as ReplayRecording.ReadError {
                return error
            } catch {
                return nil
            }
        }
    }

    /// Serves until SIGINT or SIGTERM, or until `play` returns when the whole recording is to be
    /// played once (--exit-when-done); a recording that cannot be read on ends it either way, with
    /// the reason and exit status 65.
    private func serve(_ interrupts: Interrupts, _ play: @escaping @Sendable () async -> ReplayRecording.ReadError?) async throws {
        let (endings, ending) = AsyncStream.makeStream(of: Ending.self)
        let player = Task {
            ending.yield(.played(await play()))
        }
        let signals = Task {
            await interrupts.wait()
            ending.yield(.interrupted)
        }
        defer {
            player.cancel()
            signals.cancel()
        }
        for await end in endings {
            switch end {
            case .interrupted:
                return
            case let .played(error?):
                Output.error("locate replay: stopped: \(error)")
                throw ExitCode(.dataError)
            case .played(nil):
                if exitWhenDone { return }
            }
        }
    }
}
