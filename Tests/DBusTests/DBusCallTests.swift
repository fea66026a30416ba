import DBus
import GPSCore
import Foundation
import Simulators
import Testing
import TestSupport

/// Calls through sd-bus, against a service of our own on a private `dbus-daemon`: every D-Bus
/// type both ways, errors that name what failed, timeouts and cancellation on time.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct DBusCallTests {
    static let values: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false), .int16(.min), .uint16(.max), .int32(-123_456), .uint32(.max),
        .int64(.min), .uint64(.max), .double(-1.5e300), .double(0), .string(""), .string("Grüße, 東京 ✓"),
        .objectPath("/org/example/Thing_1"), .signature("a{sv}(iu)"),
        .array(element: "s", []), .stringArray(["a", "b"]),
        .array(element: "ay", [.array(element: "y", [.byte(1), .byte(2)]), .array(element: "y", [])]),
        .variantDictionary(["level": .uint32(8), "name": .string("x"), "nested": .variantDictionary(["deep": .boolean(true)])]),
        .dictionary(key: "u", value: "as", [DBusDictionaryEntry(key: .uint32(1), value: .stringArray(["one"]))]),
        .structure([.int32(1), .string("two"), .structure([.double(3), .array(element: "x", [.int64(4)])])]),
        .variant(.variant(.string("twice wrapped"))),
    ]

    @Test(arguments: values)
    func everyTypeGoesAndComesBackUnchanged(value: DBusValue) async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let reply = try await test.client.call(
            DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "EchoVariant", [.variant(value)])
        #expect(reply == [.variant(value)], "\(value.signature)")
    }

    @Test func severalArgumentsInOrder() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let reply = try await test.client.call(
            DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Swap", ["one", .int32(2), 3.5])
        #expect(reply == [3.5, .int32(2), "one"])
    }

    @Test func aFileDescriptorArrivesAsADescriptorOfTheSameFile() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]) }
        let sent = DBusFileDescriptor(owning: pipeEnds[1])
        let reply = try await test.client.call(
            DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "EchoVariant",
            [.variant(.unixFileDescriptor(sent))])
        guard case let .variant(.unixFileDescriptor(received)) = try #require(reply.first) else {
            Issue.record("not a descriptor: \(reply)")
            return
        }
        let descriptor = try #require(received.rawValue)
        #expect(descriptor != pipeEnds[1], "the bus library sends a duplicate: the sender keeps its own")
        #expect(write(descriptor, "x", 1) == 1)
        var byte: UInt8 = 0
        #expect(read(pipeEnds[0], &byte, 1) == 1 && byte == UInt8(ascii: "x"))
    }

    /// A descriptor received and let go (a reply or a signal nobody reads) is closed: the pipe's
    /// reader sees its end once the sender's end is closed too. One taken is the taker's.
    @Test func aDescriptorLetGoIsClosedAndOneTakenIsNot() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        // Closed on exec: a child process another test starts meanwhile must not hold the write end.
        var pipeEnds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeEnds) == 0)
        defer { close(pipeEnds[0]) }
        func echo() async throws -> DBusFileDescriptor? {
            let reply = try await test.client.call(
                DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "EchoVariant",
                [.variant(.unixFileDescriptor(DBusFileDescriptor(duplicating: pipeEnds[1])!))])
            guard case let .variant(.unixFileDescriptor(received))? = reply.first else { return nil }
            return received
        }
        let taken = try #require(try await echo()?.take(), "the value was let go, its descriptor taken out first")
        _ = try await echo()  // let go at once: closed
        close(pipeEnds[1])
        // Only the taken descriptor still holds the pair's other end open: write through it, close
        // it, and the reader gets the byte, then the end (a leaked descriptor would hold it open).
        #expect(write(taken, "y", 1) == 1)
        close(taken)
        // The reads wait for the end on a thread of their own: the copies the server's handler
        // held are let go on the task pool, which a blocked read must not take a thread of.
        let reader = pipeEnds[0]
        let (first, byte, second) = await withCheckedContinuation { continuation in
            Threads.detach {
                var buffer = [UInt8](repeating: 0, count: 4)
                let first = read(reader, &buffer, 4)
                let byte = buffer[0]
                let second = read(reader, &buffer, 4)
                continuation.resume(returning: (first, byte, second))
            }
        }
        #expect(first == 1 && byte == UInt8(ascii: "y"))
        #expect(second == 0, "a descriptor of the other end is still open somewhere")
    }

    /// A signal that carries a descriptor, received and let go, closes it: the pair's other end
    /// then reads its end (the sender's, the bus's and the receiver's copies are all closed).
    @Test func aSignalLetGoClosesItsDescriptor() async throws {
        let test = try await DBusTestBus { echo in echo.addSignal("Handed", signature: "h") }
        defer { test.stop() }
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        defer { close(ends[0]) }
        let signals = try await test.client.signals(matching: DBusMatchRule(interface: DBusTestBus.interface, member: "Handed"))
        var iterator = signals.makeAsyncIterator()
        try test.exported.emit("Handed", [.unixFileDescriptor(DBusFileDescriptor(owning: ends[1]))])  // the value closes ours
        do {
            let signal = try #require(await iterator.next())
            guard case .unixFileDescriptor? = signal.arguments.first else {
                Issue.record("not a descriptor: \(signal.arguments)")
                return
            }
        }  // the signal let go here (and the stream's buffer is empty)
        let reader = ends[0]
        let read = await withCheckedContinuation { continuation in
            Threads.detach {
                var byte: UInt8 = 0
                continuation.resume(returning: Glibc.read(reader, &byte, 1))
            }
        }
        #expect(read == 0, "a descriptor of the other end is still open somewhere")
    }

    @Test func anErrorReplyNamesItselfAndWhatWasCalled() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let error = try await #require(throws: DBusError.self) {
            try await test.client.call(
                DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Fail",
                ["org.example.Error.Broken", "the widget broke"])
        }
        #expect(error.name.rawValue == "org.example.Error.Broken")
        #expect(error.message == "the widget broke")
        #expect(error.destination == DBusTestBus.service && error.path == DBusTestBus.path)
        #expect(error.interface == DBusTestBus.interface && error.member == "Fail")
        #expect(error.bus == "the bus at \(test.bus.address)")
        #expect(error.description.contains("Calling org.example.Echo.Fail on /org/example/Echo of org.example.Echo on the bus at unix:"))
        #expect(error.description.contains("org.example.Error.Broken: the widget broke"))
    }

    @Test func anyOtherErrorOfAHandlerIsFailedWithItsText() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let error = try await #require(throws: DBusError.self) {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "FailPlainly")
        }
        #expect(error.name == .failed && error.message == "it went wrong plainly")
    }

    @Test func argumentsOfTheWrongTypeAreRefusedBeforeTheHandler() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let error = try await #require(throws: DBusError.self) {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Swap", ["only one"])
        }
        #expect(error.name == .invalidArgs)
        let unknown = try await #require(throws: DBusError.self) {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Nothing")
        }
        #expect(unknown.name == .unknownMethod)
    }

    @Test func nobodyOwningTheNameIsServiceUnknown() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let error = try await #require(throws: DBusError.self) {
            try await test.client.call("org.example.Absent", path: "/", interface: "org.example.Absent", member: "Anything")
        }
        #expect(error.name == .serviceUnknown)
        #expect(error.description.hasSuffix("Is the service running, and allowed on this bus?"))
    }

    @Test func noBusAtTheAddressIsNoServerNamingIt() throws {
        let error = try #require(throws: DBusError.self) { try DBusConnection(.address("unix:path=/nonexistent/socket")) }
        #expect(error.name == .noServer)
        #expect(error.description.contains("the bus at unix:path=/nonexistent/socket"))
    }

    /// A call's timeout runs on sd-bus's own deadline, which the connection's thread waits on.
    @Test func aCallThatGetsNoAnswerEndsAtItsTimeout() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let start = ContinuousClock.now
        let error = try await #require(throws: DBusError.self) {
            try await test.client.call(
                DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Hang", timeout: .milliseconds(300))
        }
        let waited = ContinuousClock.now - start
        #expect(error.name == .noReply || error.name == .timeout, "\(error)")
        // Never before the timeout; after it, as soon as a loaded machine lets the thread run.
        #expect(waited >= .milliseconds(300) && waited < .seconds(30), "waited \(waited)")
    }

    @Test func aCancelledCallEndsAtOnce() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let call = Task {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Hang", timeout: nil)
        }
        var hangs = test.hangs.makeAsyncIterator()
        _ = await hangs.next()  // sent, and waiting for its answer
        let start = ContinuousClock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    /// A connection closed while one of its methods is still at work (a call it is answering, and
    /// the handler's own calls) ends: its bus is freed, the caller gets an error reply.
    @Test func closingWhileAHandlerIsAtWorkEndsEverything() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let call = Task {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Hang", timeout: nil)
        }
        var hangs = test.hangs.makeAsyncIterator()
        _ = await hangs.next()
        test.server.close()
        await test.server.waitUntilClosed()
        let error = try await #require(throws: DBusError.self) { try await call.value }
        #expect(error.name == .noReply, "\(error)")
        // The bus is free of it: the name it owned is gone.
        #expect(try await test.client.nameOwner(of: DBusTestBus.service) == nil)
    }

    /// An export given up before sd-bus served it leaves nothing at its path: the same path can
    /// be exported again.
    @Test func aCancelledExportLeavesThePathFree() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        var thing = DBusInterface("org.example.Thing")
        thing.addProperty("Size", .uint32(1))
        let export = Task { [thing] in try await test.server.export(thing, at: "/org/example/Thing") }
        export.cancel()
        let outcome = await export.result
        if case let .success(exported) = outcome { exported.remove() }
        let again = try await test.server.export(thing, at: "/org/example/Thing")
        #expect(again.value(of: "Size") == .uint32(1))
    }

    /// A handler's answer that cannot be sent is an error reply naming it, not silence.
    @Test func anAnswerThatCannotBeSentIsAnErrorReply() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let error = try await #require(throws: DBusError.self) {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "BadPath")
        }
        #expect(error.name == .failed && error.message == "BadPath answered a value that cannot be sent: object path not a path", "\(error)")
    }

    @Test func valuesThatCannotBeSentAreRefusedNamingWhy() {
        #expect(DBusValue.objectPath("not/a/path").invalidity == "\"not/a/path\" is not an object path")
        #expect(DBusValue.objectPath("/a//b").invalidity != nil)
        #expect(DBusValue.objectPath("/").invalidity == nil)
        #expect(DBusValue.array(element: "s", [.uint32(1)]).invalidity == "an array of s holds uint32 1 (u)")
        #expect(DBusValue.dictionary(key: "v", value: "s", []).invalidity == "a dictionary's keys must be of a basic type, not v")
        #expect(DBusValue.variantDictionary(["ok": .stringArray(["a"])]).invalidity == nil)
    }

    @Test func closingTheConnectionEndsItsCallsAndRefusesNewOnes() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let call = Task {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Hang")
        }
        var hangs = test.hangs.makeAsyncIterator()
        _ = await hangs.next()  // the call is waiting for its answer
        test.client.close()
        await test.client.waitUntilClosed()
        await #expect(throws: DBusError.self) { try await call.value }
        let error = try await #require(throws: DBusError.self) {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Sender")
        }
        #expect(error.name == .disconnected)
    }

    @Test func theBusGoingAwayEndsWaitingCallsAndClosesTheConnection() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let call = Task {
            try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Hang")
        }
        var hangs = test.hangs.makeAsyncIterator()
        _ = await hangs.next()
        test.bus.stop()
        await test.client.waitUntilClosed()
        let error = try await #require(throws: DBusError.self) { try await call.value }
        #expect(error.name == .noReply || error.name == .disconnected, "\(error)")
        #expect(test.client.isClosed)
    }

    @Test func theCallerIsNamedToTheHandler() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let reply = try await test.client.call(DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Sender")
        #expect(reply == [.string(try await test.client.uniqueName())])
    }
}
