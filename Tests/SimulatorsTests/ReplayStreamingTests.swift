import Foundation
import LocationFacade
import Simulators
@testable import SimulatorsCore
import Testing
import TestSupport

/// Replays read their recording as they play it: opening a file reads only its beginning, a part
/// further on that cannot be read ends the replay there (saying why), and a looping fake gpsd that
/// nobody watches stands still.
@Suite(.timeLimit(.minutes(1))) struct ReplayStreamingTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-streaming-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A GPX track of `count` points a second apart, then `tail` (by default the proper end).
    func gpx(count: Int, tail: String = "</trkseg></trk></gpx>\n") throws -> URL {
        var text = #"<?xml version="1.0"?><gpx version="1.1" creator="test"><trk><trkseg>"# + "\n"
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<count {
            let time = ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(index)))
            text += #"<trkpt lat="51.\#(100_000 + index)" lon="-0.001"><time>\#(time)</time></trkpt>"# + "\n"
        }
        text += tail
        let url = folder.appendingPathComponent("track-\(count).gpx")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The file used to be read whole before a replay began: a break near its end refused it all.
    /// Now the beginning plays, and the break ends the replay with its place named.
    @Test func aGPXBrokenNearItsEndPlaysUpToTheBreak() async throws {
        let url = try gpx(count: 2_000, tail: "<trkpt lat=\"51\" lon=\"0\"><time>2024</tim></trkpt>\n")
        let recording = try ReplayRecording(contentsOf: url)
        let clock = VirtualClock()
        let device = recording.device(clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        device.start()
        await clock.advance(by: .seconds(3_000))
        await device.waitUntilFinished()
        #expect(recorder.log.locations.count == 2_000)
        #expect(device.hasPlayedToEnd)
        let error = try #require(device.readError)
        #expect(error.file == url.path)
        #expect(recorder.log.errors.count == 1, "the break is reported once, as malformed data: \(recorder.log.errors)")
    }

    /// A gpsd log with a bad line far down: the fake gpsd serves the reports before it, then stops
    /// and says why. (Read whole first, the log was refused before a client could connect.)
    @Test func aGPSDLogWithABadLineFarDownIsServedUpToIt() async throws {
        let walk = try String(contentsOf: Repository.fixture("gpsd/greenwich-walk.json"), encoding: .utf8)
        let lines = walk.split(whereSeparator: \.isNewline)
        let tpvs = lines.filter { $0.contains("\"class\":\"TPV\"") }
        var text = ""
        for _ in 0..<4 { text += lines.joined(separator: "\n") + "\n" }
        let badLine = text.utf8.count { $0 == UInt8(ascii: "\n") } + 1
        text += "{not json\n"
        let url = folder.appendingPathComponent("bad-far-down.json")
        try text.write(to: url, atomically: true, encoding: .utf8)

        let recording = try ReplayRecording(contentsOf: url)
        let server = FakeGPSDServer(recording: recording, pace: .asFastAsClientsRead)
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: try server.start())
        client.start()
        defer { client.stop() }
        await server.waitUntilFinished()
        #expect(server.status.sentReports >= tpvs.count * 4)
        let error = try #require(server.readError)
        #expect(error.line == badLine)
        #expect(error.description.contains("not a gpsd JSON report"))
    }

    /// The beginning is still checked when the file is opened: a file broken from the start is
    /// refused at once, with its line.
    @Test func aFileBrokenAtItsBeginningIsRefusedWhenOpened() throws {
        let url = folder.appendingPathComponent("bad-start.json")
        try "{\"class\":\"TPV\"}\n{oops\n".write(to: url, atomically: true, encoding: .utf8)
        #expect(throws: ReplayRecording.ReadError(file: url.path, line: 2, reason: "not a gpsd JSON report: {oops")) {
            try ReplayRecording(contentsOf: url)
        }
        #expect(throws: ReplayRecording.ReadError.self) { try ReplayRecording(contentsOf: folder) }
    }

    /// Read as they play, the recordings give what the whole-file readers give.
    @Test func streamsGiveWhatTheWholeFileReadersGive() throws {
        for name in ["gpsd/greenwich-walk.json", "nmea/greenwich-walk.nmea", "gpx/greenwich-walk.gpx"] {
            let url = Repository.fixture(name)
            let recording = try ReplayRecording(contentsOf: url)
            let timeline = try recording.readTimeline()
            #expect(timeline.count > 100, "\(name)")
            switch recording.format {
            case .gpsdJSON:
                let script = try GPSDScript(contentsOf: url)
                #expect(try recording.readScript() == script)
                #expect(timeline == ReplayLocationSource(script: script).timeline)
                #expect(try recording.readNMEA() == NMEALog(timeline: timeline))
            case .nmea:
                let text = try String(contentsOf: url, encoding: .utf8)
                #expect(try recording.readNMEA() == NMEALog(text: text), "the sentences as written")
                #expect(timeline == NMEADecoder().decode(text, device: url.lastPathComponent).timeline)
                // gpsd's reports, which a client reads back as the timeline (the fake marks its
                // fixes simulated where gpsd gives no status of DGPS or better).
                let served = ReplayLocationSource(script: try recording.readScript()).timeline.map { entry in
                    guard case var .location(location) = entry.event, location.status == .simulated else { return entry }
                    location.status = nil
                    return ReplayLocationSource.Entry(offset: entry.offset, event: .location(location))
                }
                #expect(served.map(\.event) == timeline.map(\.event))
            case .gpx:
                #expect(try recording.readScript() == GPSDScript(timeline: timeline))
                #expect(try recording.readNMEA() == NMEALog(timeline: timeline))
                #expect(try timeline.compactMap(\.event.location).map(\.latitude)
                    == GPXRead.fixture("greenwich-walk.gpx").trackPoints.map(\.latitude))
            }
        }
    }

    /// A looping replay used to play on to nobody once its client left (at a huge speed, a core
    /// busy for good), its reports many passes on when the next client came. Now its time stands
    /// still until someone watches again: the next client carries on where the first left.
    @Test func aLoopingFakeGPSDNobodyWatchesStandsStill() async throws {
        let clock = VirtualClock()
        let track = SyntheticTrack.generate(count: 5)
        let server = FakeGPSDServer(script: .fixes(track), loop: true, clock: clock)
        defer { server.shutdown() }
        let port = try server.start()

        let first = GPSDClient(host: "127.0.0.1", port: port)
        let firstLog = LocationEventRecorder(observing: first)
        first.start()
        await server.waitUntil { $0.watchers == 1 }
        await clock.advance(by: .seconds(2))
        let seen = await firstLog.waitUntil { $0.locations.count >= 3 }.locations
        first.stop()
        await server.waitUntil { $0.watchers == 0 }
        await clock.advance(by: .seconds(998))  // 200 passes, had it played on

        let second = GPSDClient(host: "127.0.0.1", port: port)
        let secondLog = LocationEventRecorder(observing: second)
        second.start()
        await secondLog.waitUntil { $0.states.contains(.watching) }
        // The replay carries on from where it stood, as the clock moves on again: the next report
        // is due within two seconds of the clock.
        let sentBefore = server.status.sentReports
        for _ in 0..<30 where server.status.sentReports == sentBefore {
            await clock.advance(by: .milliseconds(100))
        }
        let next = try #require(await secondLog.waitUntil { !$0.locations.isEmpty }.locations.first)
        second.stop()
        let gap = try #require(next.time).timeIntervalSince(try #require(seen.last?.time))
        // The fix due as the first client left went to nobody, as a receiver's fix does.
        #expect(gap > 0 && gap <= 2, "the fix after the last one seen (or the next), not one 200 passes on (\(gap) s on)")
    }

    /// A client's output queue that a fast replay never lets drain held every byte ever sent to
    /// it (65 MiB after 200,000 fixes): the written part is given back as it goes.
    @Test func anOutputQueueNeverDrainedStaysSmall() {
        var queue = ByteQueue()
        let report = String(repeating: "x", count: 300)
        for _ in 0..<100_000 {
            queue.appendReport(report)
            queue.removeFirst(queue.count - 1)  // the client reads all but the last byte
        }
        #expect(queue.count == 1)
        #expect(queue.heldBytes < 1 << 18, "held \(queue.heldBytes) bytes for 1 waiting")
    }

    /// The hand-off from a GPX replay's parser thread kept every batch ever handed over while the
    /// parser stayed ahead (66 MiB after 200,000 points): it holds its capacity and no more.
    @Test func theParserHandOffHoldsItsCapacityOnly() throws {
        let handOff = BlockingHandOff<Int>(capacity: 4)
        let producer = Thread {
            for item in 0..<20_000 where !handOff.send(item) { return }
            handOff.finish()
        }
        producer.start()
        var taken = 0
        var mostHeld = 0
        while let item = try handOff.next() {
            #expect(item == taken)
            taken += 1
            mostHeld = max(mostHeld, handOff.heldItems)
        }
        #expect(taken == 20_000)
        #expect(mostHeld <= 4)
    }

    /// SimulatorsCore, which links no libgps, opens GPX and NMEA and refuses a gpsd JSON log,
    /// saying where it opens; Simulators opens all three, and its gpsd log plays what the same
    /// log's device (ReplayLocationSource(gpsdLog:), read by libgps) plays.
    @Test func aGPSDLogIsOpenedBySimulatorsAndRefusedBySimulatorsCore() async throws {
        let log = Repository.fixture("gpsd/greenwich-walk.json")
        #expect(try ReplayRecording(gpxOrNMEAContentsOf: Repository.fixture("gpx/greenwich-walk.gpx")).format == .gpx)
        #expect(try ReplayRecording(gpxOrNMEAContentsOf: Repository.fixture("nmea/greenwich-walk.nmea")).format == .nmea)
        let refusal = try #require(throws: ReplayRecording.ReadError.self) { try ReplayRecording(gpxOrNMEAContentsOf: log) }
        #expect(refusal.file == log.path)
        #expect(refusal.description.contains("ReplayRecording(contentsOf:), from Simulators"), "\(refusal)")

        let recording = try ReplayRecording(contentsOf: log)
        #expect(recording.format == .gpsdJSON)
        func played(_ device: ReplayLocationSource, clock: VirtualClock) async -> [Location] {
            let recorder = LocationEventRecorder(observing: device)
            device.start()
            await clock.advance(by: .seconds(3_600))
            await device.waitUntilFinished()
            return recorder.log.locations
        }
        let clock = VirtualClock()
        let fromRecording = await played(recording.device(clock: clock), clock: clock)
        let otherClock = VirtualClock()
        let fromLog = await played(try ReplayLocationSource(gpsdLog: log, clock: otherClock), clock: otherClock)
        #expect(!fromRecording.isEmpty)
        #expect(fromRecording.map(\.latitude) == fromLog.map(\.latitude))
        #expect(fromRecording.map(\.time) == fromLog.map(\.time))
    }
}
