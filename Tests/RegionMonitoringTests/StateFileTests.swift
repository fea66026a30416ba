import Foundation
import LocationCore
import RegionMonitoring
import Testing

@Suite("The state file: kept across runs, private, atomic, a damaged one set aside")
struct StateFileTests {
    let center = Walks.greenwich

    func temporaryPath() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("regions-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("state.json").path
    }

    @Test("Started again inside: satisfied, no enter; an exit while not running is said once the fixes prove it")
    func restartInside() throws {
        let path = try temporaryPath()
        let home = try RegionCondition.circle(center: center, radius: 100)
        do {
            let monitor = try RegionMonitor(stateFile: path)
            #expect(monitor.restoration == .fresh)
            monitor.add(home, identifier: "home")
            var events: [RegionEvent] = []
            for second in 0..<5 { events += monitor.process(Walks.fix(center, at: Double(second))) }
            #expect(events.kinds == [.enter])
        }
        do {
            let monitor = try RegionMonitor(stateFile: path)
            #expect(monitor.restoration == .restored(count: 1))
            #expect(monitor.record(for: "home")?.state == .satisfied)
            monitor.add(home, identifier: "home")  // as a program adds its regions at every start
            var events: [RegionEvent] = []
            for second in 100..<110 { events += monitor.process(Walks.fix(center, at: Double(second))) }
            // Inside since the first run's enter, more than a minute before: the dwell the first
            // run did not live to see, and nothing else.
            #expect(events.kinds == [.dwell])
        }
        // Gone while not running.
        let monitor = try RegionMonitor(stateFile: path)
        monitor.add(home, identifier: "home")
        var events: [RegionEvent] = []
        for second in 1000..<1010 { events += monitor.process(Walks.fix(center.destination(bearing: 0, distance: 900), at: Double(second))) }
        #expect(events.kinds == [.exit])
        #expect(try RegionMonitor(stateFile: path).record(for: "home")?.state == .unsatisfied)
    }

    @Test("The file is its owner's alone (0600), and no temporary file is left beside it")
    func privateAndAtomic() throws {
        let path = try temporaryPath()
        let monitor = try RegionMonitor(stateFile: path)
        monitor.add(try .circle(center: center, radius: 50), identifier: "a")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = (path as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["state.json"])
    }

    @Test("A damaged file is set aside under a new name, never overwritten, and the monitor starts without regions")
    func damaged() throws {
        let path = try temporaryPath()
        try Data("{\"version\":1,\"regions\":[{\"identif".utf8).write(to: URL(fileURLWithPath: path))
        let monitor = try RegionMonitor(stateFile: path)
        guard case let .setAside(reason, movedTo) = monitor.restoration else {
            Issue.record("not set aside: \(monitor.restoration)")
            return
        }
        #expect(movedTo == path + ".damaged")
        #expect(!reason.isEmpty)
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: movedTo)), as: UTF8.self).hasPrefix("{\"version\":1"))
        #expect(monitor.identifiers.isEmpty)
        // A second damaged one goes beside the first.
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        let again = try RegionMonitor(stateFile: path)
        #expect(again.restoration == .setAside(reason: { if case let .setAside(r, _) = again.restoration { r } else { "" } }(), movedTo: path + ".damaged-2"))
    }
}
