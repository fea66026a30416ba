import Foundation
import LocationFacade
import Simulators
import Testing

@Test func theAlarmFiresWhenTheWalkLeavesTheFence() async throws {
    let walk = URL(fileURLWithPath: #filePath)        // recordings kept beside the tests
        .deletingLastPathComponent().appendingPathComponent("Recordings/greenwich-walk.gpx")
    let recording = try ReplayRecording(contentsOf: walk)
    let clock = VirtualClock()                       // time moves only when the test says so
    let device = recording.device(clock: clock)      // GPX, gpsd JSON log or NMEA log; speed, loop, start offset
    let manager = LocationManager(source: device, clock: clock)
    let alarm = GeofenceAlarm(home: (51.477928, -0.001545), radius: 50)   // your code

    let events = LocationEventRecorder(observing: device)
    let watching = Task { try await alarm.firstExit(from: manager) }
    await events.waitUntil { $0.states.contains(.watching) }
    await clock.advance(by: .seconds(3_600))         // an hour of walking in milliseconds, same result every run
    let exit = try #require(try await watching.value)
    #expect(exit.isSimulated)
}
