import FIT
import Foundation
import TestSupport
import Testing
@testable import Workout

/// Issue 24: a Wahoo ELEMNT's ride (`2019-02-17-062644-ELEMNT-297E-195-0.fit` of the public corpus,
/// read in place) left the workout's duration at its elapsed time, 6:33:12, where the device's
/// timer says 3:44:31. The device stops its timer for auto-pause (trigger `auto`) and for the
/// rider (trigger `manual`), and once writes the rider's stop a second after auto-pause ended
/// (stop auto, start manual, stop manual one second later): that stop was taken into the
/// auto-pause before it, and 16 minutes the rider paused counted as auto-paused. Each stop and
/// start is now handed to the time line as what it was, so the duration is the elapsed time less
/// the rider's pauses, and the moving time (less auto-pause too) is the device's timer time.
@Suite struct WahooTimerTests {
    static let file = Repository.root.deletingLastPathComponent()
        .appendingPathComponent("shared/corpora/fit/2019-02-17-062644-ELEMNT-297E-195-0.fit").path

    @Test(.enabled(if: FileManager.default.fileExists(atPath: file), "the FIT corpus is not at ../shared/corpora/fit"))
    func theRidersPausesAndAutoPausesGiveTheDurationAndTheDevicesTimerTime() async throws {
        let store = try WorkoutStore.inMemory()
        let imported = try #require(try await FITImporter(store: store).importFile(at: Self.file).workouts.first)
        let workout = imported.workout
        let events = try await store.events(of: imported.workoutID)
        func paused(_ pause: WorkoutEvent.Kind, _ resume: WorkoutEvent.Kind) -> Double {
            var total = 0.0
            var since: Date?
            for event in events {
                if event.kind == pause { since = event.time }
                if event.kind == resume, let began = since {
                    total += event.time.timeIntervalSince(began)
                    since = nil
                }
            }
            return total
        }
        let byRider = paused(.pause, .resume), byAutoPause = paused(.motionPaused, .motionResumed)
        // The device's stops with trigger manual: 08:24:48-08:50:12, 08:56:33-09:13:10 (a second
        // after auto-pause ended), 11:29:58-11:51:01.
        #expect(events.filter { $0.kind == .pause }.count == 3)
        #expect(byRider == 1_524 + 997 + 1_263, "the rider paused \(byRider) s")
        let device = try #require(imported.deviceTotals?.timerTime)
        #expect(device == 13_471, "3:44:31")
        #expect(abs(workout.elapsedTime - byRider - byAutoPause - device) <= 2, "elapsed less every pause is the device's timer time")
        #expect(abs(workout.duration - (workout.elapsedTime - byRider)) <= 1, "duration \(workout.duration) s: the rider's pauses left out")
        #expect(abs(workout.movingTime - device) <= 2, "moving time \(workout.movingTime) s against the device's 13,471 s")
    }
}
