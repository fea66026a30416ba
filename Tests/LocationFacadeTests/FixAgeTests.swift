import Clocks
import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Unit tier: how old a fix gpsd holds is, from gpsd's answer to `?POLL;`, in both states of the
/// host clock (injected: this machine's kernel says its clock is not synchronized), and what a
/// manager does with a fix whose age is unknown.
@Suite("The age of a held fix", .timeLimit(.minutes(1)))
struct FixAgeTests {
    static let fixTime = Date(timeIntervalSince1970: 1_714_557_600)
    static let fix = Location(latitude: 51.5, longitude: -0.12, time: fixTime, mode: .fix2D)

    @Test func theAgeIsGPSDsClockLessTheFixsTimeWhenTheClockIsTrusted() throws {
        let answered = Self.fixTime + 16.9
        let age = try #require(GPSDClient.age(of: Self.fix, answeredAt: answered, trusted: true))
        #expect(age > .milliseconds(16_899) && age < .milliseconds(16_901), "\(age)")
        #expect(GPSDClient.age(of: Self.fix, answeredAt: answered, trusted: false) == nil, "an unsynchronized clock tells nothing")
        #expect(GPSDClient.age(of: Self.fix, answeredAt: nil, trusted: true) == nil, "an answer without its time")
        var timeless = Self.fix
        timeless.time = nil
        #expect(GPSDClient.age(of: timeless, answeredAt: answered, trusted: true) == nil, "a fix without a time")
        #expect(GPSDClient.age(of: Self.fix, answeredAt: Self.fixTime - 0.4, trusted: true) == .zero, "a receiver's rounding")
        #expect(GPSDClient.age(of: Self.fix, answeredAt: Self.fixTime - 5, trusted: true) == nil, "a fix from the future: a clock set wrong")
    }

    @Test(arguments: [
        ("localhost", true), ("LOCALHOST", true), ("127.0.0.1", true), ("127.1.2.3", true), ("::1", true), ("[::1]", true),
        ("gpsd.localhost", true), ("128.0.0.1", false), ("127.0.0.1.example.org", false), ("10.0.0.7", false),
        ("gps.example.org", false), ("::2", false), ("127.0.0.256", false),
    ])
    func whichHostsAreThisMachine(host: String, local: Bool) {
        #expect(GPSDClient.HostClock.isThisMachine(host) == local)
    }

    @Test func automaticAsksTheKernelForAGPSDOnThisMachineOnly() {
        let automatic = GPSDClient.HostClock.automatic
        #expect(automatic.trusts(host: "127.0.0.1") { true })
        #expect(!automatic.trusts(host: "127.0.0.1") { false })
        #expect(!automatic.trusts(host: "localhost") { nil }, "a kernel that cannot be asked is not trusted")
        var asked = false
        #expect(!automatic.trusts(host: "gps.example.org") { asked = true; return true }, "another machine's kernel is not ours")
        #expect(!asked)
        #expect(GPSDClient.HostClock.synchronized.trusts(host: "gps.example.org") { false })
        #expect(!GPSDClient.HostClock.unsynchronized.trusts(host: "127.0.0.1") { true })
        #expect(GPSDClient.Configuration().hostClock == .automatic, "the documented default")
    }

    /// What adjtimex(2) says, asked by Python's ctypes, independently of our shim.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func theKernelsWordIsReadAsPythonReadsIt() async throws {
        let python = try ChildProcess("/usr/bin/python3", ["-c", """
            import ctypes, ctypes.util, struct
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            buffer = ctypes.create_string_buffer(256)   # struct timex, modes 0: read only
            state = libc.adjtimex(buffer)
            status = struct.unpack_from("i", buffer, 5 * 8)[0]   # after modes and four longs
            print("synchronized" if state != 5 and not status & 0x40 else "unsynchronized")
            """])
        #expect(await python.waitUntilExit() == 0)
        let expected = try #require(python.lines().first)
        #expect(KernelClock.isSynchronized().map { $0 ? "synchronized" : "unsynchronized" } == expected)
    }

    @Test func aFixsAgeIsTheTimeSinceItWasReceived() {
        var fix = Self.fix
        fix.receivedAt = Self.fixTime + 2
        #expect(fix.age(at: Self.fixTime + 32) == .seconds(30), "from when it came, not from its GPS time")
        #expect(fix.age(at: Self.fixTime) == .zero, "never negative")
    }

    @Test func aHeldFixOfUnknownAgeIsNeverTakenAsRecent() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        let complete = Location(
            latitude: 1, longitude: 2, altitude: 3, horizontalAccuracy: 4, verticalAccuracy: 5, time: Self.fixTime, mode: .fix3D)
        async let fix = manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(3_600))
        await source.waitUntilStarted()
        source.send(.cachedLocation(complete, age: nil))
        #expect(manager.waitingRequestCount == 1)
        #expect(manager.latestLocation == nil, "not even the manager's latest")
        var live = complete
        live.latitude = 7
        source.send(.location(live))
        #expect(try await fix.latitude == 7)
    }
}
