#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// What ``RegionMonitor`` decides, without a lock, a clock, a stream or a file: the regions
/// watched, what the fixes have proven of each, and whether the fixes have lapsed. Each input (a
/// fix, a moment with none, a region added or removed) returns what to do: the events to send, and
/// the regions to write to the state file when what it keeps changed. The monitor holds one under
/// its lock and carries the actions out; a test drives one alone.
struct RegionMonitorMachine: Sendable {
    /// What the fixes have said of the time since the last usable one.
    enum Fixes: Sendable, Hashable {
        /// No usable fix yet.
        case none
        /// The last usable fix came at this time: the regions stand as the fixes left them.
        case usable(last: Date)
        /// No usable fix for ``MonitoringRules/unknownAfter`` since `last`: every region was made
        /// unknown then, once, and stays so until a usable fix.
        case lapsed(last: Date)
    }

    /// What the monitor does after an input.
    struct Actions: Sendable {
        /// The events made, in order, for the monitor's stream.
        var events: [RegionEvent] = []
        /// What the state file keeps, when it changed (a region added, removed, or with a new
        /// proven state, dwell or time in it); `nil` when nothing it keeps changed.
        var save: Snapshot?
    }

    /// The regions as the state file keeps them, numbered: a later snapshot has a larger
    /// `version`, so that of two written at once the older never replaces the newer.
    struct Snapshot: Sendable {
        let version: Int
        let regions: [RegionStateFile.SavedRegion]
    }

    /// The rules every region is watched by (a region's own may be stricter).
    let rules: MonitoringRules
    private(set) var fixes: Fixes = .none
    private var slots: [RegionTracker?] = []
    private var free: [Int] = []
    private var byIdentifier: [String: Int] = [:]
    private var index = SpatialIndex()
    /// The slots a fix far from them may still change (see ``RegionTracker/needsEveryFix``).
    private var active: Set<Int> = []
    /// How many snapshots were given.
    private var versions = 0

    /// A machine watching `saved` (as the state file had them) by `rules`.
    init(rules: MonitoringRules, saved: [RegionStateFile.SavedRegion] = []) {
        self.rules = rules
        for region in saved {
            var tracker = RegionTracker(identifier: region.identifier, condition: region.condition, assuming: region.state ?? .unknown)
            tracker.satisfiedSince = region.satisfiedSince
            tracker.dwelt = region.dwelt
            insert(tracker)
        }
    }

    // MARK: - Regions

    /// Watches `condition` as `identifier` (see ``RegionMonitor/add(_:identifier:assuming:rules:)``).
    mutating func add(_ condition: RegionCondition, identifier: String, assuming: RegionState, rules regionRules: MonitoringRules?) -> Actions {
        if let slot = byIdentifier[identifier] {
            if var kept = slots[slot], kept.condition == condition {
                guard kept.rules != regionRules else { return Actions() }
                remove(slot)
                kept.rules = regionRules
                insert(kept)
                return Actions()
            }
            remove(slot)
        }
        var tracker = RegionTracker(identifier: identifier, condition: condition, assuming: assuming)
        tracker.rules = regionRules
        insert(tracker)
        return Actions(save: snapshot())
    }

    /// Stops watching `identifier`.
    mutating func remove(_ identifier: String) -> Actions {
        guard let slot = byIdentifier[identifier] else { return Actions() }
        remove(slot)
        return Actions(save: snapshot())
    }

    func record(for identifier: String) -> RegionRecord? {
        byIdentifier[identifier].flatMap { slots[$0]?.record }
    }

    var identifiers: [String] {
        slots.compactMap { $0?.identifier }
    }

    /// The regions as the state file keeps them, with a new version.
    mutating func snapshot() -> Snapshot {
        versions += 1
        return Snapshot(version: versions, regions: slots.compactMap { tracker in
            tracker.map {
                RegionStateFile.SavedRegion(
                    identifier: $0.identifier, condition: $0.condition, state: $0.proven, satisfiedSince: $0.satisfiedSince, dwelt: $0.dwelt)
            }
        })
    }

    private mutating func insert(_ tracker: RegionTracker) {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            slots[slot] = tracker
        } else {
            slot = slots.count
            slots.append(tracker)
        }
        byIdentifier[tracker.identifier] = slot
        let regionRules = tracker.rules ?? rules
        index.insert(slot, box: tracker.condition.boundingBox.expanded(by: regionRules.maximumAccuracy + regionRules.hysteresis + 1))
        if tracker.needsEveryFix { active.insert(slot) }
    }

    private mutating func remove(_ slot: Int) {
        guard let tracker = slots[slot] else { return }
        byIdentifier[tracker.identifier] = nil
        slots[slot] = nil
        free.append(slot)
        index.remove(slot)
        active.remove(slot)
    }

    // MARK: - Fixes and time

    /// One fix (see ``RegionMonitor/process(_:)``): the regions it can decide updated, and the
    /// lapse of the fixes said first when it came after ``MonitoringRules/unknownAfter``.
    mutating func process(_ fix: Location) -> Actions {
        let date = fix.time ?? fix.receivedAt
        let accuracy = fix.horizontalAccuracy ?? rules.accuracyWhenUnreported
        let usable = fix.mode != .noFix && fix.hasValidCoordinates && accuracy.isFinite && accuracy <= rules.maximumAccuracy
        var actions = check(at: date)
        guard usable else { return actions }
        fixes = .usable(last: date)
        let point = GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude)
        var near = Set(index.candidates(near: point))
        near.formUnion(active)
        var changed = false
        for slot in near.sorted() {
            guard var tracker = slots[slot] else { continue }
            let box = tracker.condition.boundingBox.expanded(by: accuracy + (tracker.rules ?? rules).hysteresis + 1)
            // A circle over the antimeridian has a box past ±180: no quick answer for it.
            let farAway = box.minLongitude >= -180 && box.maxLongitude <= 180 && !box.contains(point)
            let made = tracker.update(with: fix, point: point, date: date, accuracy: accuracy, rules: rules, farAway: farAway)
            // A cross changes nothing kept; a dwell does (the region's dwelt mark).
            if made.contains(where: { $0.kind != .cross }) || tracker.proven != slots[slot]?.proven { changed = true }
            slots[slot] = tracker
            if tracker.needsEveryFix { active.insert(slot) } else { active.remove(slot) }
            actions.events += made
        }
        if changed { actions.save = snapshot() }
        return actions
    }

    /// Time has reached `date` with no fix since the last (see ``RegionMonitor/check(at:)``): past
    /// ``MonitoringRules/unknownAfter`` since the last usable fix, every region becomes unknown, once.
    mutating func check(at date: Date) -> Actions {
        guard case let .usable(last) = fixes, date.timeIntervalSince(last) >= rules.unknownAfter.seconds else { return Actions() }
        fixes = .lapsed(last: last)
        let moment = last.addingTimeInterval(rules.unknownAfter.seconds)
        var events: [RegionEvent] = []
        for slot in slots.indices {
            guard var tracker = slots[slot] else { continue }
            events += tracker.becomeUnknown(at: moment)
            slots[slot] = tracker
            if tracker.needsEveryFix { active.insert(slot) }
        }
        return Actions(events: events)
    }
}
