import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Protocol tier: the `locate watch` process against the fake gpsd, checking output and exit codes.
@Suite("locate watch", .timeLimit(.minutes(1)))
struct WatchCommandTests {
    static let track = SyntheticTrack.generate(count: 20, seed: 5)

    func serve(_ script: GPSDScript = .fixes(track), faults: [GPSDFault] = []) throws -> (FakeGPSDServer, String) {
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead, faults: faults)
        let port = try server.start()
        return (server, "127.0.0.1:\(port)")
    }

    @Test func jsonPrintsOneLocationObjectPerFixAndExitsZeroAtTheCount() async throws {
        let (server, address) = try serve()
        defer { server.shutdown() }
        let result = try await Locate.run(["watch", address, "--json", "--count", "5"])
        #expect(result.status == 0)
        #expect(result.output.count == 5)
        let decoded = try result.output.map { try JSONDecoder().decode(Location.self, from: Data($0.utf8)) }
        for (fix, expected) in zip(decoded, Self.track) {
            #expect(fix.latitude == expected.latitude && fix.longitude == expected.longitude && fix.time == expected.time)
            #expect(fix.isSimulated && fix.status == .simulated && fix.device == GPSDScript.defaultDevice)
        }
        #expect(result.error.isEmpty)
    }

    @Test func textPrintsOneReadableLinePerFix() async throws {
        let (server, address) = try serve()
        defer { server.shutdown() }
        let result = try await Locate.run(["watch", address, "--count", "2"])
        #expect(result.status == 0)
        #expect(result.output.count == 2)
        #expect(result.output.first?.hasPrefix("2024-05-01T10:00:00.000Z 51.4779280 -0.0015450 3D ±") == true)
        #expect(result.output.first?.hasSuffix("(simulated)") == true)
    }

    @Test func unreachableGPSDExits69WithOneLineNamingHostAndPort() async throws {
        let port = try GPSFake.freePort()
        let result = try await Locate.run(["watch", "127.0.0.1:\(port)", "--count", "1"])
        #expect(result.status == 69)
        #expect(result.output.isEmpty)
        #expect(result.error == [
            "locate watch: Cannot reach gpsd at 127.0.0.1:\(port): the TCP connection was refused or failed. Is gpsd running and listening there?",
        ])
    }

    @Test(arguments: [["127.0.0.1:notaport"], ["--count", "0"], ["--reconnect-for", "-1"], ["[::1"], ["--frobnicate"]])
    func badUsageExits64(arguments: [String]) async throws {
        let result = try await Locate.run(["watch"] + arguments)
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(!result.error.isEmpty)
    }

    @Test func lostGPSDExits69WhenItDoesNotComeBack() async throws {
        let (server, address) = try serve(faults: [.shutDown(afterMessages: 3)])
        defer { server.shutdown() }
        let result = try await Locate.run(["watch", address, "--json", "--reconnect-for", "0.3"])
        #expect(result.status == 69)
        #expect(result.output.count == 3)
        #expect(result.error.last == "locate watch: Lost the connection to gpsd at \(address): gpsd closed the connection.")
    }

    @Test func aGPSDThatComesBackIsWatchedToTheCount() async throws {
        let (server, address) = try serve(faults: [.closeConnections(afterMessages: 3)])
        defer { server.shutdown() }
        let result = try await Locate.run(["watch", address, "--json", "--count", "8", "--verbose"])
        #expect(result.status == 0)
        let times = try result.output.map { try JSONDecoder().decode(Location.self, from: Data($0.utf8)).time }
        #expect(times == Self.track.prefix(8).map(\.time))
        #expect(result.error.contains("locate watch: \(address): watching"))
        #expect(result.error.contains { $0.hasPrefix("locate watch: Lost the connection to gpsd at \(address)") })
    }

    @Test func aDeviceInTheAddressLimitsTheFixesToIt() async throws {
        let a = GPSDScript.fixes(SyntheticTrack.generate(count: 5, seed: 1), device: "/dev/a")
        let b = GPSDScript.fixes(SyntheticTrack.generate(count: 5, seed: 2), device: "/dev/b")
        let (server, address) = try serve(GPSDScript(entries: zip(a.entries, b.entries).flatMap { [$0, $1] }))
        defer { server.shutdown() }
        let result = try await Locate.run(["watch", "\(address):/dev/b", "--json", "--count", "5"])
        #expect(result.status == 0)
        #expect(result.output.allSatisfy { $0.contains(#""device":"/dev/b""#) })
    }
}
