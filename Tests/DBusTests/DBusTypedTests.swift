import DBus
import Foundation
import GPSCore
import Simulators
import Testing
import TestSupport

/// Replies, properties and signals read as types of our own (``DBusDecodable``) straight from the
/// messages, against the echo service on a private `dbus-daemon`; and the same types read from
/// values already in hand.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct DBusTypedTests {
    /// An object's interfaces as `GetManagedObjects` lists them: its sensor's rate.
    struct SensorObject: DBusKeyedDecodable {
        var rate: UInt32?
        var interfaces: [String] = []

        mutating func decode(key interface: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
            interfaces.append(interface)
            guard interface == "org.example.Sensor" else { return }  // passed over
            rate = try value.decode(SensorProperties.self).rate
        }
    }

    struct SensorProperties: DBusKeyedDecodable {
        var rate: UInt32?

        mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
            if key == "Rate" { rate = try value.decode() }
        }
    }

    /// `Tick`'s arguments (`ut`).
    struct Tick: DBusDecodable, Equatable {
        var count: UInt32
        var time: UInt64

        init(count: UInt32, time: UInt64) {
            self.count = count
            self.time = time
        }

        init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
            count = try decoder.decode()
            time = try decoder.decode()
        }
    }

    @Test func managedObjectsAreReadAsTheirOwnType() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let manager = try await test.server.addObjectManager(at: "/org/example")
        defer { manager.cancel() }
        var sensor = DBusInterface("org.example.Sensor")
        sensor.addProperty("Rate", .uint32(60))
        sensor.addProperty("Name", "left pedal")
        let exported = try await test.server.export(sensor, at: "/org/example/sensors/one")
        defer { exported.remove() }
        let objects = try await test.client.managedObjects(of: DBusTestBus.service, at: "/org/example", as: SensorObject.self)
        #expect(objects["/org/example/sensors/one"]?.rate == 60)
        #expect(objects["/org/example/Echo"]?.rate == nil)
        #expect(objects["/org/example/Echo"]?.interfaces.contains(DBusTestBus.interface) == true)
    }

    @Test func aPropertyIsReadAsItsTypeThroughItsVariant() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let proxy = DBusProxy(test.client, destination: DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface)
        #expect(try await proxy.property("Level", as: UInt32.self) == 8)
        #expect(try await proxy.property("Level", as: Int.self) == 8, "an integer of another width whose value fits")
        #expect(try await proxy.property("Name", as: String.self) == "first")
    }

    /// A reply that is not what was asked for is an error that names the call, where in the
    /// reply it went wrong, what was expected and what was there.
    @Test func aReplyOfAnotherTypeIsAnErrorNamingWhereAndWhat() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let proxy = DBusProxy(test.client, destination: DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface)
        let error = try await #require(throws: DBusError.self) { try await proxy.property("Level", as: String.self) }
        #expect(error.name == .invalidSignature)
        #expect(error.destination == DBusTestBus.service && error.path == DBusTestBus.path)
        #expect(error.interface == "org.freedesktop.DBus.Properties" && error.member == "Get")
        #expect(error.message == "the reply (v) is not what was expected: expected a string (s), found u", "\(error.message)")

        let manager = try await test.server.addObjectManager(at: "/")
        defer { manager.cancel() }
        let nested = try await #require(throws: DBusError.self) {
            try await test.client.managedObjects(of: DBusTestBus.service, at: "/", as: WrongRate.self)
        }
        #expect(nested.message.hasSuffix("expected a boolean (b) at /org/example/Echo > org.example.Echo > Level, found u"), "\(nested.message)")
    }

    /// `Level` read as a boolean, which it is not.
    struct WrongRate: DBusKeyedDecodable {
        var level: Bool?

        mutating func decode(key interface: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
            guard interface == DBusTestBus.interface else { return }
            try value.decodeDictionary(keyedBy: String.self) { (key: String, property: inout DBusDecoder) throws(DBusDecodingError) in
                if key == "Level" { level = try property.decode() }
            }
        }
    }

    /// An array of bytes goes and comes back whole, and reads as `[UInt8]` or as values.
    @Test func bytesTravelWhole() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let reply = try await test.client.call(
            DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "EchoVariant", [.variant(.bytes(bytes))])
        #expect(reply == [.variant(.bytes(bytes))])
        guard case let .variant(.bytes(read))? = reply.first else {
            Issue.record("an ay is read as .bytes: \(reply.first.map(\.signature) ?? "nothing")")
            return
        }
        #expect(read == bytes)
        let typed = try await test.client.call(
            DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "EchoVariant", [.variant(.bytes([1, 2, 3]))],
            returning: Echoed<[UInt8]>.self)
        #expect(typed.value == [1, 2, 3])
        #expect(DBusValue.bytes([1, 2]) == .array(element: "y", [.byte(1), .byte(2)]))
        #expect(Set([DBusValue.bytes([1, 2]), .array(element: "y", [.byte(1), .byte(2)])]).count == 1)
    }

    /// A reply of one value, read as a `Value` through its variant.
    struct Echoed<Value: DBusDecodable>: DBusDecodable {
        var value: Value

        init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
            value = try decoder.decode()
        }
    }

    /// A typed stream gets the signals whose arguments read as its type, and passes over others.
    @Test func aTypedStreamPassesOverSignalsOfOtherTypes() async throws {
        let test = try await DBusTestBus { echo in echo.addSignal("Said", signature: "s") }
        defer { test.stop() }
        let ticks = try await test.client.signals(
            matching: DBusMatchRule(sender: DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface), as: Tick.self)
        var iterator = ticks.makeAsyncIterator()
        try test.exported.emit("Said", ["not a tick"])
        try test.exported.emit("Tick", [.uint32(1), .uint64(1_000)])
        let first = try #require(await iterator.next())
        #expect(first.member == "Tick" && first.arguments == Tick(count: 1, time: 1_000))
        #expect(first.path == DBusTestBus.path && first.interface == DBusTestBus.interface)
    }

    /// A batching handler gets, in order and together, the signals one read of the bus brought:
    /// a burst of a hundred reads as a handful of batches, not a hundred.
    @Test func aBatchingHandlerGetsTheSignalsOfAReadTogether() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let (batches, received) = AsyncStream.makeStream(of: [Tick].self)
        let registration = try await test.client.onSignals(
            matching: DBusMatchRule(sender: DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Tick"),
            as: Tick.self, readingAtMostEvery: .milliseconds(500)
        ) { batch in received.yield(batch) }
        defer { registration.cancel() }
        for count in 1...100 { try test.exported.emit("Tick", [.uint32(UInt32(count)), .uint64(0)]) }
        var got: [[Tick]] = []
        for await batch in batches {
            got.append(batch)
            if got.joined().count == 100 { break }
        }
        #expect(got.joined().map(\.count) == Array(1...100), "every signal, in order")
        #expect(got.count < 10 && got.contains { $0.count > 1 }, "\(got.map(\.count))")
    }

    /// While a batching handler spaces the reads out by an hour, signals and a call's reply awaited
    /// in `readingPromptly` come as they are sent (without it, this test waits out its time limit),
    /// and so did the bus's confirmation of the handler's own match.
    @Test func aPromptWaitIsReadAsItComesThoughABatchingHandlerSpacesTheReads() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let (batches, received) = AsyncStream.makeStream(of: [Tick].self)
        let registration = try await test.client.onSignals(
            matching: DBusMatchRule(sender: DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Tick"),
            as: Tick.self, readingAtMostEvery: .seconds(3_600)
        ) { batch in received.yield(batch) }
        defer { registration.cancel() }
        var iterator = batches.makeAsyncIterator()
        for count in 1...2 {
            let batch = try await test.client.readingPromptly {
                try test.exported.emit("Tick", [.uint32(UInt32(count)), .uint64(0)])
                return await iterator.next()
            }
            #expect(batch?.map(\.count) == [UInt32(count)])
        }
        let echoed = try await test.client.readingPromptly {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Swap", ["a", .int32(1), .double(2)])
        }
        #expect(echoed == [.double(2), .int32(1), "a"])
    }

    /// Read from values in hand, a type reads as it does from a message: variants looked
    /// through, integers of any width that fit, keys it does not read passed over.
    @Test func valuesInHandReadAsMessagesDo() throws {
        let properties = DBusValue.variantDictionary([
            "Rate": .byte(200), "Extra": .structure([.string("passed"), .variant(.int64(1))]),
        ])
        #expect(try properties.decode(SensorProperties.self).rate == 200)
        #expect(try DBusValue.variant(.variant(.uint32(7))).decode(Int.self) == 7)
        let error = try #require(throws: DBusDecodingError.self) { try DBusValue.int32(-1).decode(UInt32.self) }
        #expect(error.description == "expected an integer that fits UInt32, found the integer -1")
        let dictionary = try DBusValue.dictionary(
            key: "s", value: "as", [DBusDictionaryEntry(key: "a", value: .stringArray(["x", "y"]))]
        ).decode([String: [String]].self)
        #expect(dictionary == ["a": ["x", "y"]])
        #expect(try DBusValue.bytes([4, 5]).decode([UInt8].self) == [4, 5])
        #expect(try DBusValue.array(element: "y", [.byte(4)]).decode([UInt8].self) == [4])
    }
}
