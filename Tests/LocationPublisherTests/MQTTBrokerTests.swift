import Foundation
import LocationCore
import LocationPublisher
import SimulatorsCore
import Testing
import TestSupport

/// The publisher against a real mosquitto, read by `mosquitto_sub`: clients we did not write on
/// both sides of our MQTT code.
@Suite(.tags(.childProcess), .enabled(if: PrivateMosquitto.isAvailable, "mosquitto is not installed (scripts/install-deps)"),
       .timeLimit(.minutes(1)))
struct MQTTBrokerTests {
    /// Quick reconnection: a restarted broker is found again within tens of milliseconds.
    static func configuration(_ broker: PrivateMosquitto, user: String = "alice", device: String = "van") -> MQTTDestination.Configuration {
        var configuration = MQTTDestination.Configuration.ownTracks(host: "127.0.0.1", port: Int(broker.port), user: user, device: device)
        configuration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
        configuration.retain = false
        return configuration
    }

    static let quick = LocationPublisher.Configuration(backoff: Backoff(initial: .milliseconds(10), maximum: .milliseconds(100)))

    @Test func everyFixOfAReplayArrivesOnceInOrder() async throws {
        let broker = try await PrivateMosquitto()
        let subscriber = try await broker.subscribe("owntracks/#")
        let destination = try MQTTDestination(Self.configuration(broker))
        let clock = VirtualClock()
        let fixes = track(30)
        let (source, started) = replay(fixes, on: clock)
        let publisher = LocationPublisher(source: source, outbox: try .inMemory(), destinations: [destination], configuration: Self.quick)
        let running = Task { await publisher.run() }
        await started()
        // One fix a second, each delivered before the next comes, as a live 1 Hz source is.
        for step in 0..<30 {
            await clock.advance(by: step == 0 ? .zero : .seconds(1))
            await publisher.waitForStatus { $0.sent > step }
        }
        #expect(await subscriber.waitFor { arrivalOrder($0).count == 30 })
        let expected = fixes.map { Int($0.time!.timeIntervalSince1970) }
        #expect(arrivalOrder(subscriber.messages) == expected)
        let end = await publisher.drain(timeout: .seconds(30))
        await running.value
        #expect(end.queued == 0)
        #expect(end.sent == 30)
        #expect(end.lastError == nil)
        await destination.close()
        await broker.stop()
        // Each payload is OwnTracks' location, on the OwnTracks topic.
        for message in subscriber.messages {
            #expect(message.topic == "owntracks/alice/van")
        }
    }

    @Test func theBrokerStoppedMidStreamLosesNothingNewestFirstThenTheBacklog() async throws {
        let broker = try await PrivateMosquitto()
        let subscriber = try await broker.subscribe("owntracks/#")
        let destination = try MQTTDestination(Self.configuration(broker))
        let clock = VirtualClock()
        let fixes = track(20)
        let times = fixes.map { Int($0.time!.timeIntervalSince1970) }
        let (source, started) = replay(fixes, on: clock)
        let publisher = LocationPublisher(source: source, outbox: try .inMemory(), destinations: [destination], configuration: Self.quick)
        let running = Task { await publisher.run() }
        await started()
        for step in 0..<10 {
            await clock.advance(by: step == 0 ? .zero : .seconds(1))
            await publisher.waitForStatus { $0.sent > step }
        }
        #expect(await subscriber.waitFor { arrivalOrder($0).count == 10 })

        await broker.stop()
        // Ten more fixes while the broker is down: queued, and the error said.
        await clock.advance(by: .seconds(10))
        let down = await publisher.waitForStatus { $0.queued == 10 && $0.lastError != nil }
        #expect(down?.lastError?.isTransient == true)
        #expect(down?.oldestUnsent == fixes[10].time)

        try await broker.start()
        #expect(await subscriber.waitFor { arrivalOrder($0).count == 20 })
        let order = arrivalOrder(subscriber.messages)
        // Live in order; after the outage the newest first (where the device is now), then the
        // backlog in time order.
        #expect(order == Array(times[0..<10]) + [times[19]] + Array(times[10..<19]))
        let end = await publisher.drain(timeout: .seconds(30))
        await running.value
        #expect(end.queued == 0 && end.lastError == nil)
        await destination.close()
        await broker.stop()
    }

    @Test func aReopenedOutboxIsSentFirst() async throws {
        let broker = try await PrivateMosquitto()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("outbox.sqlite").path
        let fixes = track(12)
        let times = fixes.map { Int($0.time!.timeIntervalSince1970) }
        await step("stopping the broker") { await broker.stop() }
        do {
            // The first run: the broker is down; twelve fixes queue up, and the process "dies"
            // (its publisher is cancelled and dropped, without a drain).
            let destination = try MQTTDestination(Self.configuration(broker))
            let clock = VirtualClock()
            let (source, started) = replay(fixes, on: clock)
            let publisher = LocationPublisher(source: source, outbox: try Outbox(path: path), destinations: [destination], configuration: Self.quick)
            let running = Task { await publisher.run() }
            await started()
            await clock.advance(by: .seconds(12))
            await publisher.waitForStatus { $0.queued == 12 && $0.lastError != nil }
            running.cancel()
            await step("the first run's end") { await running.value }
            await step("closing the first run's client") { await destination.close() }
        }
        try await step("starting the broker again") { try await broker.start() }
        let subscriber = try await step("subscribing") { try await broker.subscribe("owntracks/#") }
        // The next run, on the same file, with a source that has nothing to say yet.
        let destination = try MQTTDestination(Self.configuration(broker))
        let outbox = try Outbox(path: path)
        #expect(try outbox.count() == 12)
        let publisher = LocationPublisher(
            source: ReplayLocationSource(locations: [], clock: VirtualClock()), outbox: outbox, destinations: [destination],
            configuration: Self.quick)
        let running = Task { await publisher.run() }
        #expect(await step("the queue's arrival") { await subscriber.waitFor { arrivalOrder($0).count == 12 } })
        #expect(arrivalOrder(subscriber.messages) == [times[11]] + Array(times[0..<11]))
        let end = await step("the drain", limit: .seconds(40)) { await publisher.drain(timeout: .seconds(30)) }
        await step("the second run's end") { await running.value }
        #expect(end.queued == 0)
        #expect(try outbox.count() == 0)
        await step("closing the second run's client") { await destination.close() }
        await step("stopping the broker") { await broker.stop() }
    }

    @Test func twoHundredPublishersInOneProcessAllArrive() async throws {
        let broker = try await PrivateMosquitto()
        let subscriber = try await broker.subscribe("owntracks/#")
        let count = 200
        let perPublisher = 3
        var destinations: [MQTTDestination] = []
        var publishers: [LocationPublisher] = []
        for index in 0..<count {
            let destination = try MQTTDestination(Self.configuration(broker, user: "fleet", device: "v\(index)"))
            destinations.append(destination)
            let publisher = LocationPublisher(
                source: ReplayLocationSource(locations: [], clock: VirtualClock()), outbox: try .inMemory(), destinations: [destination],
                configuration: Self.quick)
            for fix in track(perPublisher, latitude: 40 + Double(index) / 100) { publisher.publish(fix) }
            publishers.append(publisher)
        }
        let all = publishers
        let sent = await withTaskGroup(of: Int.self) { group in
            for publisher in all {
                group.addTask {
                    async let run: Void = publisher.run()
                    await publisher.waitForStatus { $0.queued == 0 }
                    let end = await publisher.drain(timeout: .seconds(30))
                    await run
                    return end.sent
                }
            }
            return await group.reduce(0, +)
        }
        #expect(sent == count * perPublisher)
        // Every (device, tst) at the subscriber. (The wait counts distinct lines: cheap at each
        // of the 600 lines; a position sent twice prints the same line.)
        let expected = count * perPublisher
        #expect(await subscriber.waitFor { $0.count >= expected })
        let arrived = Set(subscriber.messages.compactMap { message in ownTracksTime(message.payload).map { "\(message.topic) \($0)" } })
        #expect(arrived.count == expected)
        for destination in destinations { await destination.close() }
        await broker.stop()
    }

    @Test func mqtt5DeliversAsWell() async throws {
        let broker = try await PrivateMosquitto()
        let subscriber = try await broker.subscribe("owntracks/#")
        var configuration = Self.configuration(broker)
        configuration.protocolVersion = .v5
        let destination = try MQTTDestination(configuration)
        for fix in track(3) {
            try await destination.deliver(PositionMessage(id: 1, location: fix))
        }
        #expect(await subscriber.waitFor { arrivalOrder($0).count == 3 })
        await destination.close()
        await broker.stop()
    }

    @Test func tlsWithTheRightAuthorityDeliversAndWithAnotherNamesTheCertificateProblem() async throws {
        let broker = try await PrivateMosquitto(tls: true)
        let subscriber = try await broker.subscribe("owntracks/#")
        let fix = track(1)[0]
        var trusted = Self.configuration(broker)
        trusted.port = Int(try #require(broker.tlsPort))
        trusted.tls = MQTTDestination.TLS(caFile: broker.caFile)
        let good = try MQTTDestination(trusted)
        #expect(good.name.hasPrefix("mqtts://127.0.0.1:"))
        try await good.deliver(PositionMessage(id: 1, location: fix))
        #expect(await subscriber.waitFor { arrivalOrder($0).count == 1 })
        await good.close()

        var untrusted = trusted
        untrusted.clientID += "-untrusted"
        untrusted.tls = MQTTDestination.TLS(caFile: broker.otherCAFile)
        let bad = try MQTTDestination(untrusted)
        await #expect {
            try await bad.deliver(PositionMessage(id: 2, location: fix))
        } throws: { error in
            guard case let .tlsFailure(_, problem) = error as? PublishError else { return false }
            return problem.contains("certificate verify failed")
        }
        await bad.close()
        await broker.stop()
    }

    @Test func refusedCredentialsAreSaidAsSuch() async throws {
        let broker = try await PrivateMosquitto(users: ["alice": "right"])
        var configuration = Self.configuration(broker)
        configuration.username = "alice"
        configuration.password = "wrong"
        let destination = try MQTTDestination(configuration)
        await #expect {
            try await destination.deliver(PositionMessage(id: 1, location: track(1)[0]))
        } throws: { error in
            guard case .refusedCredentials = error as? PublishError else { return false }
            return !"\(error)".contains("wrong")
        }
        await destination.close()
        configuration.password = "right"
        configuration.clientID += "-2"
        let allowed = try MQTTDestination(configuration)
        try await allowed.deliver(PositionMessage(id: 1, location: track(1)[0]))
        await allowed.close()
        await broker.stop()
    }

    @Test func homeAssistantSeesTheDeviceWithNoYAML() async throws {
        let broker = try await PrivateMosquitto()
        let subscriber = try await broker.subscribe("homeassistant/#")
        let attributes = try await broker.subscribe("swift-gps-facade/#")
        let discovery = HomeAssistantDiscovery(objectID: "van7", deviceName: "Van 7")
        var configuration = MQTTDestination.Configuration(
            host: "127.0.0.1", port: Int(broker.port), clientID: "ha-van7", topic: "unused", format: .homeAssistant(discovery))
        configuration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
        let destination = try MQTTDestination(configuration)
        try await destination.deliver(PositionMessage(id: 1, location: track(1)[0]))
        #expect(await subscriber.waitFor { $0.count == 3 })
        #expect(Set(subscriber.messages.map(\.topic)) == Set(discovery.configurations().map(\.topic)))
        #expect(await attributes.waitFor { $0.count == 1 })
        let object = try JSONSerialization.jsonObject(with: Data(try #require(attributes.messages.first).payload.utf8)) as? [String: Any]
        #expect(object?["latitude"] as? Double == 51.4778)
        #expect(object?["gps_accuracy"] as? Double == 5)
        await destination.close()
        // Retained: a subscriber that comes later still gets the configurations.
        let late = try await broker.subscribe("homeassistant/#")
        #expect(await late.waitFor { $0.count == 3 })
        await broker.stop()
    }

    /// A region's enter and leave, through the publisher's outbox, reach mosquitto as OwnTracks'
    /// `_type: transition` on the `/event` topic, read by paho with every member the booklet
    /// lists; the positions around them stay on the location topic.
    @Test(.enabled(if: MQTTPeers.isAvailable, "\(MQTTPeers.missing)"))
    func transitionsReachPahoAsOwnTracksTransitions() async throws {
        let broker = try await PrivateMosquitto()
        let paho = try ChildProcess(
            try #require(MQTTPeers.python), [MQTTPeers.subscriber, "127.0.0.1", "\(broker.port)", "owntracks/#"])
        defer { paho.terminate() }
        #expect(await paho.waitForLine { $0 == "SUBSCRIBED" } != nil)
        let destination = try MQTTDestination(Self.configuration(broker))
        let source = FakeLocationSource()
        let publisher = LocationPublisher(source: source, outbox: try .inMemory(), destinations: [destination], configuration: Self.quick)
        let running = Task { await publisher.run() }
        let fixes = track(3)
        let defined = Date(timeIntervalSince1970: 1_600_000_000)
        source.send(.location(fixes[0]))
        publisher.publish(RegionTransition(event: .enter, region: "harbour \"north\"", regionCreatedAt: defined), at: fixes[0])
        source.send(.location(fixes[1]))
        publisher.publish(RegionTransition(event: .leave, region: "harbour \"north\"", regionCreatedAt: defined), at: fixes[1], time: fixes[1].time!.addingTimeInterval(0.5))
        source.send(.location(fixes[2]))
        await publisher.waitForStatus { $0.sent == 5 }
        // The predicate runs under the process's lock: it counts the message lines it is shown.
        let lines = Locked(0)
        #expect(await paho.waitForLine(unfinished: false) { line in
            lines.withLock { count in
                if line.hasPrefix("{") { count += 1 }
                return count == 5
            }
        } != nil)
        _ = await publisher.drain(timeout: .seconds(5))
        await running.value
        let received = paho.lines().filter { $0.hasPrefix("{") }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let transitions = received.filter { $0["topic"] as? String == "owntracks/alice/van/event" }
        #expect(received.filter { $0["topic"] as? String == "owntracks/alice/van" }.count == 3)
        #expect(transitions.count == 2)
        for (message, event) in zip(transitions, ["enter", "leave"]) {
            let text = try #require(message["payload"] as? String)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(payload["_type"] as? String == "transition")
            #expect(payload["event"] as? String == event)
            #expect(payload["desc"] as? String == "harbour \"north\"")
            #expect(payload["wtst"] as? Int == 1_600_000_000)
            #expect(payload["tst"] as? Int == Int(fixes[event == "enter" ? 0 : 1].time!.timeIntervalSince1970))
            #expect(payload["acc"] as? Int == 5)
            #expect(payload["tid"] as? String == "an")
            #expect(payload["t"] as? String == "c")
            #expect(payload["lat"] as? Double == fixes[0].latitude)
            #expect(message["qos"] as? Int == 1)
        }
        await destination.close()
        await broker.stop()
    }

    /// After an outage the newest position goes first, retained, and the backlog after it is not:
    /// a subscriber that comes later gets the newest as the broker's retained position, not the
    /// last of the backlog.
    @Test func afterAnOutageOnlyTheNewestIsRetained() async throws {
        let broker = try await PrivateMosquitto()
        var configuration = Self.configuration(broker)
        configuration.retain = true
        let destination = try MQTTDestination(configuration)
        let fixes = track(4)
        let messages = ([fixes[3]] + fixes[0..<3]).enumerated().map { PositionMessage(id: Int64($0.offset + 1), location: $0.element) }
        let results = await destination.deliver(contentsOf: messages)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        let late = try await broker.subscribe("owntracks/alice/van")
        #expect(await late.waitFor { !$0.isEmpty })
        #expect(late.messages.compactMap { ownTracksTime($0.payload) } == [Int(fixes[3].time!.timeIntervalSince1970)])
        await destination.close()
        await broker.stop()
    }

    @Test(.enabled(if: MQTTPeers.isAvailable, "\(MQTTPeers.missing)"))
    func pahoReadsOwnTracksAtQoS1() async throws {
        let broker = try await PrivateMosquitto()
        let paho = try ChildProcess(
            try #require(MQTTPeers.python), [MQTTPeers.subscriber, "127.0.0.1", "\(broker.port)", "owntracks/#", "--v5"])
        defer { paho.terminate() }
        #expect(await paho.waitForLine { $0 == "SUBSCRIBED" } != nil)
        let destination = try MQTTDestination(Self.configuration(broker))
        let fixes = track(3)
        for (index, fix) in fixes.enumerated() {
            try await destination.deliver(PositionMessage(id: Int64(index + 1), location: fix, battery: 80))
        }
        let last = Int(fixes[2].time!.timeIntervalSince1970)
        // The payload, a JSON string inside paho's JSON line, has its quotes escaped. A whole
        // line: a part of it would be found before lines() has it (seen: 2 of 3 read).
        #expect(await paho.waitForLine(unfinished: false) { $0.contains(#"\"tst\":\#(last)"#) } != nil)
        let received = paho.lines().filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(received.count == 3)
        for message in received {
            #expect(message["topic"] as? String == "owntracks/alice/van")
            #expect(message["qos"] as? Int == 1)
            let payload = try JSONSerialization.jsonObject(with: Data(try #require(message["payload"] as? String).utf8)) as? [String: Any]
            #expect(payload?["_type"] as? String == "location")
            #expect(payload?["batt"] as? Int == 80)
            #expect(payload?["tid"] as? String == "an", "the device's last two characters, as OwnTracks' apps")
        }
        await destination.close()
        await broker.stop()
    }
}
