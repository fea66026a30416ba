import Foundation
import GPSCore
import LocationCore
import LocationFacade
import Testing

// The examples of LocationCore, LocationFacade and GPSCore, as printed in their `///` comments
// and DocC articles, in functions that give them what they name. ReadmeTests checks that each
// example is here; the tests below run those that need nothing outside the process.

/// Collects the values of examples that show a value on each line, so they compile as printed,
/// without a warning that a value is unused.
@resultBuilder
enum ExampleValues {
    static func buildExpression<Value>(_ value: Value) -> [Any] { [value] }
    static func buildBlock(_ values: [Any]...) -> [Any] { values.flatMap { $0 } }
}

enum LocationExamples {
    // LocationCore/LocationManager.swift, LocationFacade.docc/LocationFacade.md, LocationCore.docc
    static func manager() async throws {
        let manager = LocationManager(source: GPSDClient(host: "127.0.0.1", port: 2947))
        let fix = try await manager.requestLocation(timeout: .seconds(10))
        print(fix.latitude, fix.longitude)

        for try await location in manager.updates() {   // continuous; ends when the task is cancelled
            print(location)
        }
    }

    // LocationCore.docc/GettingALocation.md
    static func gettingALocation() async throws {
        let manager = LocationManager(source: GPSDClient(host: "127.0.0.1", port: 2947))
        let fix = try await manager.requestLocation(timeout: .seconds(10), minimumMode: .fix3D)
        print(fix.latitude, fix.longitude, fix.altitude ?? .nan)
    }

    // LocationCore.docc/GettingALocation.md
    static func updates(_ manager: LocationManager) async throws {
        for try await location in manager.updates(minimumMode: .fix2D, distanceFilter: 5) {
            print(location)
        }
    }

    // LocationCore/Location.swift
    static func age(_ manager: LocationManager) async throws {
        let fix = try await manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(30))
        print(fix.age())   // at most 30 s, and 0 s for a fix that came after the call
    }

    // LocationCore/LocationManager+Configuration.swift
    static func configuration() -> LocationManager {
        let manager = LocationManager(
            source: GPSDClient(host: "127.0.0.1", port: 2947),
            configuration: .init(sourceGracePeriod: .seconds(30)))   // a request every 20 s keeps gpsd streaming
        return manager
    }

    // LocationCore/LocationManager.swift
    static func liveUpdates(_ manager: LocationManager) async throws {
        for try await update in manager.liveUpdates(minimumMode: .fix3D) {
            guard let location = update.location else { continue }   // locationUnavailable
            print(location.altitude ?? .nan)
        }
    }

    // LocationCore/LocationUpdate.swift
    static func update(_ manager: LocationManager) async throws {
        for try await update in manager.liveUpdates(desiredAccuracy: 20) {
            if let location = update.location {
                print(location)
            } else if update.locationUnavailable {
                print("no usable fix for a while")   // a tunnel, an antenna unplugged, gpsd gone
            }
        }
    }

    // LocationCore/Location.swift
    static func location(_ manager: LocationManager) async throws {
        let fix = try await manager.requestLocation(timeout: .seconds(10))
        print(fix.latitude, fix.longitude, fix.horizontalAccuracy ?? .nan)
    }

    // LocationCore/LocationSource.swift
    final class MySource: LocationSource {
        private let observers = LocationObservers()
        func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
            observers.add(handler)
        }
        func start() { observers.send(.connectionChanged(.watching)) }   // then each fix: .location(fix)
        func stop() { observers.send(.connectionChanged(.stopped)) }
        func requestLatestFix() {}                                      // none kept
    }

    // LocationFacade/GPSDAddress.swift
    @ExampleValues static func addresses() throws -> [Any] {
        try GPSDAddress(parsing: "10.0.0.5:2948:/dev/ttyUSB0")   // host, port, device
        try GPSDAddress(parsing: "[::1]:2947")                    // IPv6 in brackets
        try GPSDAddress(parsing: "")                              // localhost:2947, every device
    }

    // LocationFacade/GPSDClient.swift
    static func client(_ myDelegate: any GPSDClientDelegate) {
        let client = GPSDClient(host: "127.0.0.1", port: 2947)
        client.delegate = myDelegate
        client.start()            // returns at once; connecting happens on the client's reader thread
        // ...
        client.stop()
    }

    // LocationFacade/GPSDClientDelegate.swift
    static func delegate() {
        final class Printer: GPSDClientDelegate {
            func gpsdClient(_ client: GPSDClient, didUpdateLocation location: Location) {
                print(location.latitude, location.longitude)
            }
        }
        let printer = Printer()
        let client = GPSDClient()
        client.delegate = printer   // weak: keep `printer` alive yourself
        client.start()
        client.stop()
    }

    // GPSCore/Geodesy.swift
    @ExampleValues static func distance() -> [Any] {
        Geodesy.distance(51.4779, -0.0015, 51.4826, -0.0077)   // 676.4 m
    }

    // GPSCore/Geodesy.swift
    @ExampleValues static func bearing() -> [Any] {
        Geodesy.initialBearing(51.4779, -0.0015, 51.4826, -0.0077)   // 320.6°
    }

    // GPSCore/RFC3339.swift
    @ExampleValues static func parse() -> [Any] {
        RFC3339.parse("2019-08-12T23:45:00+01:15")?.date   // 2019-08-12 22:30:00 UTC
    }

    // GPSCore/RFC3339.swift
    @ExampleValues static func format() -> [Any] {
        RFC3339.string(from: Date(timeIntervalSince1970: 0.25))   // "1970-01-01T00:00:00.250Z"
    }

    // GPSCore/JSONScan+Syntax.swift
    @ExampleValues static func syntaxError() -> [Any] {
        JSONScan.syntaxError(in: Array("[[10.0,53.5],]".utf8))?.description
        // "a comma after the last element of an array (JSON allows none before ']') at line 1, column 13"
    }

    // LocationCore/Motion/MotionDetector.swift
    static func stops(in locations: [Location]) -> [Double] {
        struct Fix: MotionFix {
            var time, latitude, longitude: Double
            var speed, horizontalAccuracy: Double?
            var segment = 0
        }
        var detector = MotionDetector<Fix, NoMotionAction>(rule: .standingStill)
        var stops: [Double] = []
        for location in locations {
            let fix = Fix(time: location.time!.timeIntervalSince1970, latitude: location.latitude,
                          longitude: location.longitude, speed: location.speed, horizontalAccuracy: location.horizontalAccuracy)
            for case let .stopped(at) in detector.add(fix) { stops.append(at) }   // when each stop began
        }
        return stops
    }
}

/// The examples that show a value give the value their comment says.
@Suite("API reference examples: location")
struct LocationExampleTests {
    @Test func theValuesAreTheOnesTheExamplesSay() throws {
        let addresses = try LocationExamples.addresses().compactMap { $0 as? GPSDAddress }
        #expect(addresses.map(\.port) == [2948, 2947, 2947])
        #expect(addresses.first?.device == "/dev/ttyUSB0" && addresses[1].host == "::1" && addresses[2].device == nil)
        let distance = try #require(LocationExamples.distance().first as? Double)
        #expect(abs(distance - 676.4) < 0.05)
        let bearing = try #require(LocationExamples.bearing().first as? Double)
        #expect(abs(bearing - 320.6) < 0.05)
        let parsed = try #require(LocationExamples.parse().first as? Date?)
        #expect(parsed == RFC3339.parse("2019-08-12T22:30:00Z")?.date)
        #expect(LocationExamples.format().first as? String == "1970-01-01T00:00:00.250Z")
        #expect(LocationExamples.syntaxError().first as? String?
            == "a comma after the last element of an array (JSON allows none before ']') at line 1, column 13")
    }

    /// A drive that stands still for 30 s at a red light, its speed reported: one stop, dated at
    /// the last fix before the slow ones.
    @Test func theMotionDetectorsExampleFindsTheStop() {
        var locations: [Location] = []
        for second in 0..<90 {
            let moving = second < 30 || second >= 60
            let east = Double(min(second, 30)) * 10 + Double(max(0, second - 60)) * 10
            locations.append(Location(
                latitude: 48.2, longitude: 16.37 + east / 74_000, horizontalAccuracy: 4, speed: moving ? 10 : 0.1,
                time: Date(timeIntervalSince1970: 1_700_000_000 + Double(second)), receivedAt: .now, mode: .fix2D))
        }
        #expect(LocationExamples.stops(in: locations) == [1_700_000_029])
    }

    @Test func theSourceOfTheExampleSaysWhatItDoes() {
        let source = LocationExamples.MySource()
        let states = Locked<[ConnectionState]>([])
        let observation = source.addObserver { event in
            if case let .connectionChanged(state) = event { states.withLock { $0.append(state) } }
        }
        source.start()
        source.stop()
        observation.cancel()
        source.start()
        #expect(states.withLock { $0 } == [.watching, .stopped])
    }
}
