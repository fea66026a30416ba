import Foundation
import LocationCore
@testable import RegionMonitoring
import Testing

/// `RegionMonitorMachine` alone: no lock, no clock, no stream, no file. Each input's actions are
/// the events and what the state file is to keep; the fixes' lapse is a state of its own.
@Suite struct RegionMonitorMachineTests {
    static let home = try! CircularRegion(center: Walks.greenwich, radius: 100)  // a valid circle: the test's own constant
    static let far = Walks.greenwich.destination(bearing: 90, distance: 5_000)

    @Test func addingAndRemovingSaysWhatToKeep() {
        var machine = RegionMonitorMachine(rules: MonitoringRules())
        let added = machine.add(.circle(Self.home), identifier: "home", assuming: .unknown, rules: nil)
        #expect(added.events.isEmpty && added.save?.version == 1 && added.save?.regions.map(\.identifier) == ["home"])
        #expect(machine.add(.circle(Self.home), identifier: "home", assuming: .satisfied, rules: nil).save == nil,
                "the same region again: nothing to keep anew")
        let other = machine.add(.anchor(Self.home), identifier: "boat", assuming: .satisfied, rules: nil)
        #expect(other.save?.version == 2 && other.save?.regions.map(\.state) == [nil, .satisfied])
        #expect(machine.remove("nowhere").save == nil)
        #expect(machine.remove("home").save?.regions.map(\.identifier) == ["boat"])
        #expect(machine.identifiers == ["boat"])
    }

    @Test func fixesThatProveAStateAreKeptAndTheOthersAreNot() {
        var machine = RegionMonitorMachine(rules: MonitoringRules())
        _ = machine.add(.circle(Self.home), identifier: "home", assuming: .unknown, rules: nil)
        #expect(machine.fixes == .none)
        let first = machine.process(Walks.fix(Walks.greenwich, at: 0))
        #expect(first.events.isEmpty && first.save == nil, "one fix inside confirms nothing yet")
        #expect(machine.fixes == .usable(last: Walks.start))
        let second = machine.process(Walks.fix(Walks.greenwich, at: 1))
        #expect(second.events.kinds == [.enter])
        #expect(second.save?.regions.first?.state == .satisfied)
        #expect(machine.process(Walks.fix(Walks.greenwich, at: 2)).save == nil, "inside again: nothing new to keep")
        let unusable = machine.process(Walks.fix(Self.far, at: 3, accuracy: 2_200))
        #expect(unusable.events.isEmpty && unusable.save == nil && machine.fixes == .usable(last: Walks.start.addingTimeInterval(2)))
        #expect(machine.record(for: "home")?.state == .satisfied)
    }

    /// Past `unknownAfter` since the last usable fix, once: every region unknown, nothing kept
    /// (the state file holds what the fixes last proved), until a usable fix.
    @Test func theFixesLapseOnceAndComeBack() {
        var machine = RegionMonitorMachine(rules: MonitoringRules())
        _ = machine.add(.circle(Self.home), identifier: "home", assuming: .satisfied, rules: nil)
        _ = machine.process(Walks.fix(Walks.greenwich, at: 0))
        #expect(machine.check(at: Walks.start.addingTimeInterval(9.9)).events.isEmpty)
        let lapse = machine.check(at: Walks.start.addingTimeInterval(10))
        #expect(lapse.events.kinds == [.unknown] && lapse.save == nil)
        #expect(machine.fixes == .lapsed(last: Walks.start))
        #expect(machine.check(at: Walks.start.addingTimeInterval(60)).events.isEmpty, "said once")
        _ = machine.process(Walks.fix(Walks.greenwich, at: 61))
        #expect(machine.fixes == .usable(last: Walks.start.addingTimeInterval(61)))
    }

    /// A crossing is an event, not a state to keep.
    @Test func aCrossingIsNotKept() throws {
        var machine = RegionMonitorMachine(rules: MonitoringRules(confirmation: .fixes(1)))
        let gate = try CrossingLine(from: Walks.greenwich.destination(bearing: 0, distance: 50), to: Walks.greenwich.destination(bearing: 180, distance: 50))
        _ = machine.add(.line(gate), identifier: "gate", assuming: .unknown, rules: nil)
        var crossings = 0
        for (second, point) in Walks.line(from: Walks.greenwich.destination(bearing: 270, distance: 40), bearing: 90, step: 4, seconds: 20).enumerated() {
            let actions = machine.process(Walks.fix(point, at: Double(second)))
            crossings += actions.events.filter { $0.kind == .cross }.count
            if actions.events.allSatisfy({ $0.kind == .cross }) { #expect(actions.save == nil) }
        }
        #expect(crossings == 1)
    }
}
