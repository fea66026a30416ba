import Foundation
import LocationCore
import RegionMonitoring
import SimulatorsCore
import Testing

/// The README's anchor watch, as printed, run on a replay that drags.
@Suite("The README's anchor watch")
struct ReadmeExampleTests {
    static func anchorWatch(_ fix: Location, _ gps: any LocationSource) async throws {
        let monitor = try RegionMonitor(stateFile: "anchor-watch.json")
        let alarm = try AnchorAlarm(droppedAt: fix, bearing: 0, distance: 15, swingRadius: AnchorAlarm.swingRadius(rode: 40, depth: 6))
        monitor.add(alarm.condition, identifier: "anchor", assuming: .satisfied)
        let following = monitor.follow(gps)
        for await event in monitor.events {
            switch event.kind {
            case .drag: print("DRAGGING at \(event.date): \(alarm.distance(from: event.location!)) m from the anchor")
            case .unknown: print("no fix since \(event.date)")
            default: print(event.identifier, event.kind, event.state)
            }
        }
        following.cancel()
    }

    @Test("Its swing radius and anchor position are what the README says, and a drag past them alarms")
    func anchorWatchDrags() throws {
        let fix = Walks.fix(Walks.greenwich, at: 0)
        let alarm = try AnchorAlarm(droppedAt: fix, bearing: 0, distance: 15, swingRadius: AnchorAlarm.swingRadius(rode: 40, depth: 6))
        #expect(abs(alarm.swingRadius - (1564.0.squareRoot() + 10)) < 1e-9)
        #expect(alarm.anchor.latitude > fix.latitude)
        let monitor = RegionMonitor()
        monitor.add(alarm.condition, identifier: "anchor", assuming: .satisfied)
        var kinds: [RegionEvent.Kind] = []
        for second in 1...10 {
            let distance = second < 5 ? 20.0 : 80.0
            kinds += monitor.process(Walks.fix(alarm.anchor.destination(bearing: 180, distance: distance), at: Double(second))).map(\.kind)
        }
        #expect(kinds == [.drag])
    }
}
