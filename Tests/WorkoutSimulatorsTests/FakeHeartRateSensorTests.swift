import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
import Workout

@Suite("Fake heart-rate sensor")
struct FakeHeartRateSensorTests {
    let start = SyntheticTrack.defaultStartTime

    @Test func theSameSeedGivesTheSameSeriesAndAnotherSeedAnother() {
        let route = SyntheticTrack.generate(count: 600)
        let first = FakeHeartRateSensor(seed: 3).samples(for: route)
        #expect(first == FakeHeartRateSensor(seed: 3).samples(for: route))
        #expect(first != FakeHeartRateSensor(seed: 4).samples(for: route))
        #expect(first.count == route.count)
        #expect(first.map(\.start) == route.map { $0.time! })
        #expect(first.allSatisfy { $0.type == .heartRate && $0.value == $0.value.rounded() })
    }

    @Test func itWarmsUpWithALagAndStaysBetweenRestAndMaximum() {
        let sensor = FakeHeartRateSensor(restingRate: 60, maximumRate: 180)
        let hard = sensor.samples(start: start, duration: 1_800, effort: 0.9).map(\.value)
        #expect(hard[0] <= 63, "starts at rest")
        #expect(hard[10] < hard[120], "rises over the first minutes, not at once")
        let plateau = hard[300...]
        #expect(plateau.allSatisfy { $0 >= 150 && $0 <= 180 }, "\(plateau.min()!)...\(plateau.max()!)")
        #expect(hard.allSatisfy { $0 >= 57 && $0 <= 180 })
        let early = hard[300..<600].reduce(0, +) / 300, late = hard[1_500..<1_800].reduce(0, +) / 300
        #expect(late > early, "cardiac drift: \(early) then \(late)")
        let easy = sensor.samples(start: start, duration: 1_800, effort: 0.3).map(\.value)
        #expect(easy[600...].max()! < plateau.min()!, "an easy effort stays below a hard one")
    }

    @Test func itFollowsTheRoutesEffort() {
        // Ten minutes walking, ten running, ten walking.
        var route = SyntheticTrack.generate(count: 1_800, speed: 1.4)
        for index in 600..<1_200 { route[index].speed = 4.5 }
        let rates = FakeHeartRateSensor(seed: 9).samples(for: route).map(\.value)
        func mean(_ range: Range<Int>) -> Double { rates[range].reduce(0, +) / Double(range.count) }
        #expect(mean(900..<1_200) > mean(300..<600) + 30, "running raises it")
        #expect(mean(1_500..<1_800) < mean(900..<1_200) - 25, "walking again brings it down")
    }
}
