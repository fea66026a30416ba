import ArgumentParser
import Foundation
import GPSCore
import LocationFacade
import LocationPublisher
import Simulators

/// `gpsbench publish ...`: positions through a LocationPublisher (file outbox, MQTT QoS 1) into a
/// broker on loopback, for `scripts/bench.d/80-publish.py`, which starts the broker and compares
/// with `mosquitto_pub -l -q 1`.
struct PublishBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish positions one at a time (latency), or drain a filled outbox.",
        subcommands: [Live.self, Drain.self, Fill.self]
    )

    struct Options: ParsableArguments {
        @Option(help: "The broker's port on 127.0.0.1.")
        var port: Int
        @Option(help: "How many positions.")
        var count: Int
        @Option(help: "The outbox file (removed first).")
        var outbox: String
        @Flag(help: "Sync each outbox commit to the disk (synchronous=FULL).")
        var full = false
    }

    /// The destination's deliveries, each with the time from the message's making (its append to
    /// the outbox) to the PUBACK.
    final class Timing: PublishDestination {
        let inner: MQTTDestination
        let latencies = ObservedState([Double]())
        var name: String { inner.name }

        init(_ inner: MQTTDestination) {
            self.inner = inner
        }

        func deliver(_ message: PositionMessage) async throws {
            try await inner.deliver(message)
            let latency = Date().timeIntervalSince(message.createdAt)
            latencies.withLock { $0.append(latency) }
        }

        /// The inner destination's batch (several in flight), each acknowledged one timed.
        func deliver(contentsOf messages: [PositionMessage]) async -> [Result<Void, any Error>] {
            let results = await inner.deliver(contentsOf: messages)
            let now = Date()
            let acknowledged = zip(messages, results).compactMap { message, result in
                (try? result.get()).map { now.timeIntervalSince(message.createdAt) }
            }
            latencies.withLock { $0.append(contentsOf: acknowledged) }
            return results
        }
    }

    static func fixes(_ count: Int) -> [Location] {
        (0..<count).map { index in
            Location(
                latitude: 51.4778 + Double(index % 1000) * 1e-5, longitude: -0.0014, altitude: 46, horizontalAccuracy: 5,
                verticalAccuracy: 8, speed: 7, course: 90, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
        }
    }

    static func setUp(_ options: Options) throws -> (Timing, Outbox) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: options.outbox + suffix) }
        var configuration = MQTTDestination.Configuration.ownTracks(host: "127.0.0.1", port: options.port, user: "bench", device: "pub")
        configuration.retain = false
        configuration.clientID = "gpsbench-\(getpid())"
        let destination = Timing(try MQTTDestination(configuration))
        let outbox = try Outbox(path: options.outbox, capacity: max(options.count, Outbox.defaultCapacity), durability: options.full ? .full : .normal)
        return (destination, outbox)
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    struct Live: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish COUNT positions one at a time, each acknowledged before the next; print the latencies.")
        @OptionGroup var options: Options

        func run() async throws {
            let (destination, outbox) = try PublishBench.setUp(options)
            let publisher = LocationPublisher(source: FakeLocationSource(), outbox: outbox, destinations: [destination])
            let running = Task { await publisher.run() }
            let started = ContinuousClock.now
            for (index, fix) in PublishBench.fixes(options.count).enumerated() {
                publisher.publish(fix, trigger: .timer)
                await destination.latencies.waitUntil { $0.count > index }
            }
            let elapsed = ContinuousClock.now - started
            _ = await publisher.drain(timeout: .seconds(10))
            await running.value
            await destination.inner.close()
            let latencies = destination.latencies.withLock { $0 }
            print(#"{"seconds":\#(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18),"#
                + #""p50_ms":\#(PublishBench.percentile(latencies, 0.5) * 1000),"p99_ms":\#(PublishBench.percentile(latencies, 0.99) * 1000)}"#)
        }
    }

    struct Drain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fill the outbox with COUNT positions, then time sending them all.")
        @OptionGroup var options: Options

        func run() async throws {
            let (destination, outbox) = try PublishBench.setUp(options)
            for fix in PublishBench.fixes(options.count) { try outbox.append(fix, for: [destination.name]) }
            let publisher = LocationPublisher(source: FakeLocationSource(), outbox: outbox, destinations: [destination])
            let started = ContinuousClock.now
            let running = Task { await publisher.run() }
            await destination.latencies.waitUntil { $0.count >= options.count }
            let elapsed = ContinuousClock.now - started
            _ = await publisher.drain(timeout: .seconds(10))
            await running.value
            await destination.inner.close()
            print(#"{"seconds":\#(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18),"left":\#(try outbox.count())}"#)
        }
    }

    struct Fill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill the outbox with COUNT positions for DESTINATION, for `locate publish` to drain.")
        @Option(help: "The destination's name, as `locate publish` names it (mqtt://127.0.0.1:PORT).")
        var destination: String
        @Option(help: "How many positions.")
        var count: Int
        @Option(help: "The outbox file (removed first).")
        var outbox: String
        @Flag(help: "Sync each outbox commit to the disk (synchronous=FULL).")
        var full = false

        func run() async throws {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: outbox + suffix) }
            let outbox = try Outbox(path: outbox, capacity: max(count, Outbox.defaultCapacity), durability: full ? .full : .normal)
            for fix in PublishBench.fixes(count) { try outbox.append(fix, for: [destination]) }
        }
    }
}
