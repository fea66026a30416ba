import Foundation
import LocationFacade

/// The README's LocationFacade examples, verbatim, so they keep compiling. They are not run here:
/// they talk to a gpsd on port 2947. The same calls run against fakes in the other tests.
enum ReadmeExamples {
    static func oneLineToGetAPosition() async throws {
        let manager = LocationManager(source: GPSDClient(host: "127.0.0.1", port: 2947))
        let fix = try await manager.requestLocation(timeout: .seconds(10))
        print(fix.latitude, fix.longitude)

        for try await location in manager.updates() {   // continuous; ends when the task is cancelled
            print(location)
        }
    }

    static func liveUpdates() async throws {
        let manager = LocationManager(
            source: GPSDClient(host: "127.0.0.1", port: 2947),
            configuration: .init(sourceGracePeriod: .seconds(5), epochWait: .seconds(1), unavailableAfter: .seconds(10),
                                 stationaryRule: .standingStill))  // the defaults
        for try await update in manager.liveUpdates(desiredAccuracy: 20) {
            if let location = update.location {
                print(location, "received", location.age(), "ago", update.isStationary ? "(stationary)" : "")
            } else if update.locationUnavailable {
                print("no fix as accurate as 20 m for 10 s")
            }
        }
    }

    final class Printer: GPSDClientDelegate {
        func gpsdClient(_ client: GPSDClient, didUpdateLocation location: Location) {
            print(location.latitude, location.longitude, location.horizontalAccuracy ?? .nan)
        }
        func gpsdClient(_ client: GPSDClient, didFailWithError error: LocationError) {
            print(error)   // "Cannot reach gpsd at localhost:2947: the TCP connection was refused or failed. ..."
        }
    }

    static func delegateStyle() {
        let printer = Printer()
        let client = GPSDClient(host: "localhost", port: 2947)   // or device: "/dev/ttyUSB0"
        client.delegate = printer                                // held weakly
        client.start()                                           // returns at once
        client.requestLatestFix()                                // gpsd's ?POLL;
    }
}
