import Foundation
import LocationFacade
import Simulators

// where-am-i [FILE]: one position from gpsd on this machine, or, given a recording (GPX, gpsd
// JSON log or NMEA log), from the built-in simulated device replaying it.
let source: any LocationSource
if CommandLine.arguments.count > 1 {
    source = try ReplayRecording(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1])).device()
} else {
    source = GPSDClient(host: "127.0.0.1", port: 2947)
}
let manager = LocationManager(source: source)
do {
    let fix = try await manager.requestLocation(timeout: .seconds(10))
    print(fix.latitude, fix.longitude, fix.isSimulated ? "(simulated)" : "")
} catch {
    print("where-am-i: \(error)")
    exit(1)
}
