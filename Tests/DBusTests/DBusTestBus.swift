import DBus
import GPSCore
import Simulators

/// A private bus with one connection to it, and an echo service exported on a second one: what
/// most tests here start from.
struct DBusTestBus {
    static let service = "org.example.Echo"
    static let path = "/org/example/Echo"
    static let interface = "org.example.Echo"

    let bus: PrivateBus
    let client: DBusConnection
    let server: DBusConnection
    let exported: DBusExportedInterface
    let setValues: SetRecorder
    /// One element each time the `Hang` method is called, as its handler starts.
    let hangs: AsyncStream<Void>

    /// Starts a bus and the echo service on it.
    init(extra: (inout DBusInterface) -> Void = { _ in }) async throws {
        bus = try await PrivateBus()
        server = try DBusConnection(.address(bus.address))
        client = try DBusConnection(.address(bus.address))
        let recorder = SetRecorder()
        setValues = recorder
        let (hangs, hangStarted) = AsyncStream.makeStream(of: Void.self)
        self.hangs = hangs
        var echo = DBusInterface(Self.interface)
        echo.addMethod("EchoVariant", input: "v", output: "v") { call in call.arguments }
        echo.addMethod("Swap", input: "sid", output: "dis") { call in call.arguments.reversed() }
        echo.addMethod("Fail", input: "ss") { call in
            throw DBusError(name: .init(rawValue: call.arguments[0].stringValue!), message: call.arguments[1].stringValue!, bus: "")
        }
        echo.addMethod("FailPlainly") { _ in throw PlainError() }
        echo.addMethod("Hang") { _ in
            hangStarted.yield()
            // Answers nothing until the call is cancelled: a stream nothing is sent on ends for its
            // reader when the reader's task is cancelled.
            let (never, sender) = AsyncStream.makeStream(of: Never.self)
            defer { sender.finish() }
            for await _ in never {}
            throw CancellationError()
        }
        echo.addMethod("Sender", output: "s") { call in [.string(call.sender ?? "")] }
        echo.addMethod("BadPath", output: "o") { _ in [.objectPath("not a path")] }
        echo.addProperty("Level", .uint32(8))
        echo.addWritableProperty("Name", .string("first")) { value in
            if value.stringValue == "refused" { throw DBusError(name: .accessDenied, message: "not that name", bus: "") }
            recorder.record(value)
        }
        echo.addSignal("Tick", signature: "ut")
        extra(&echo)
        try await server.requestName(Self.service)
        exported = try await server.export(echo, at: Self.path)
    }

    func stop() {
        client.close()
        server.close()
        bus.stop()
    }

    struct PlainError: Error, CustomStringConvertible {
        var description: String { "it went wrong plainly" }
    }
}

/// The values a writable property was set to, in order.
final class SetRecorder: Sendable {
    private let values = Locked<[DBusValue]>([])
    func record(_ value: DBusValue) { values.withLock { $0.append(value) } }
    var recorded: [DBusValue] { values.withLock { $0 } }
}
