import DBus
import Foundation
import GeoClue
import GeoClueSimulators
import GPSCore
import LocationCore
import Simulators
import Testing
import TestSupport

/// A GeoClue to test a client against, on a private bus, with a way to feed it positions: the
/// fake one, fed directly, or the real one, fed NMEA through its socket. The same scenarios run
/// against both, so the fake is held to the real GeoClue.
protocol GeoClueWorld: Sendable {
    var bus: PrivateBus { get }
    /// Makes `fixes` reach GeoClue's clients, in order, once GeoClue reads them for a started client.
    func feed(_ fixes: [Location]) async
    /// GeoClue goes away as a crash takes it.
    func kill() async
    /// GeoClue starts again.
    func restart() async throws
    func stop()
}

extension GeoClueWorld {
    var address: DBusConnection.Address { .address(bus.address) }

    func source(desktopID: String = "org.example.GeoClueTests", notice: Duration = .seconds(2)) -> GeoClueLocationSource {
        GeoClueLocationSource(configuration: .init(
            desktopID: desktopID, bus: address, reconnectDelay: .milliseconds(50), maximumReconnectDelay: .milliseconds(400),
            authorizationNotice: notice))
    }

    /// A fix of a walk in Greenwich, the `index`th second of it.
    static func walk(_ index: Int) -> Location {
        Location(
            latitude: 51.4779 + Double(index) * 0.0001, longitude: -0.0015 - Double(index) * 0.0001, altitude: 45 + Double(index),
            horizontalAccuracy: 5, speed: 1.4, course: 225, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
    }
}

/// The fake GeoClue, fed by a FakeLocationSource.
final class FakeWorld: GeoClueWorld {
    let bus: PrivateBus
    let device = FakeLocationSource()
    let fake: FakeGeoClue

    init(authorization: FakeGeoClue.Authorization = .asGeoClue) async throws {
        bus = try await PrivateBus()
        fake = try await FakeGeoClue(bus: bus.address, source: device, authorization: authorization)
    }

    func feed(_ fixes: [Location]) async {
        // The fake publishes to started clients: wait for one, as GeoClue's reading starts with it.
        await fake.waitUntil(activeClients: 1)
        await device.waitUntilStarted()
        for fix in fixes { device.send(.location(fix)) }
    }

    func kill() async { fake.vanish() }
    func restart() async throws { try await fake.comeBack() }

    func stop() {
        fake.stop()
        bus.stop()
    }
}

/// The real GeoClue 2.6, fed NMEA through a Unix socket.
final class SystemWorld: GeoClueWorld {
    let bus: PrivateBus
    let receiver: NMEASocketServer
    private let geoclue: Locked<SystemGeoClue?>
    /// The readers GeoClue had connected before it last started.
    private let readersBefore = Locked(0)

    init() async throws {
        bus = try await PrivateBus()
        receiver = try NMEASocketServer(path: bus.folder + "/nmea.sock")
        geoclue = Locked(try await SystemGeoClue(bus: bus, nmeaSocket: receiver.path))
    }

    /// As GGA and RMC sentences, once GeoClue has connected to the socket since it (last)
    /// started: it does so when a client starts. (GeoClue reads a GGA's time of day, on the day it
    /// reads it, so a fix it reports has today's date, not the one fed.)
    func feed(_ fixes: [Location]) async {
        _ = await receiver.waitForReaders(readersBefore.withLock { $0 } + 1)
        receiver.write(fixes.flatMap { NMEAEncoder.epoch(for: $0) })
    }

    func kill() async {
        let geoclue = self.geoclue.withLock { $0 }
        geoclue?.kill()
        _ = await geoclue?.waitUntilExit()
    }

    func restart() async throws {
        readersBefore.withLock { $0 = receiver.acceptedReaders }
        let started = try await SystemGeoClue(bus: bus, nmeaSocket: receiver.path)
        geoclue.withLock { $0 = started }
    }

    func stop() {
        geoclue.withLock { $0 }?.stop()
        receiver.stop()
        bus.stop()
    }
}
