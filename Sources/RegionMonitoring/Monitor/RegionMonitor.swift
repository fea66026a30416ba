#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationCore

/// Watches regions (circles, polygons, corridors, lines to cross, an anchor's swing) and says when
/// the fixes prove the device has entered, left, dwelt in or crossed one: `CLMonitor`'s shape,
/// with rules that keep GPS jitter from making false transitions (``MonitoringRules``).
///
/// Feed it from a `LocationSource` with ``follow(_:clock:rate:now:)``, or hand it fixes with
/// ``process(_:)`` (which also returns the events they made). Time is the fixes' own: nothing in
/// it reads the system clock, so a replay on a virtual clock gives the same events every run.
///
/// ```swift
/// let monitor = RegionMonitor()
/// try monitor.add(.circle(center: GeoCoordinate(latitude: 51.4779, longitude: -0.0015), radius: 100), identifier: "observatory")
/// let following = monitor.follow(source)
/// for await event in monitor.events {
///     print(event.identifier, event.kind, event.date)
/// }
/// ```
///
/// With a state file (``init(rules:stateFile:)``) the regions and their last proven states are
/// kept across runs: started again inside a region, it reports the region satisfied and makes no
/// enter; an exit that happened while it was not running is reported once the fixes prove it.
public final class RegionMonitor: Sendable {
    struct State: Sendable {
        var slots: [RegionTracker?] = []
        var free: [Int] = []
        var byIdentifier: [String: Int] = [:]
        var index = SpatialIndex()
        /// The slots a fix far from them may still change (see ``RegionTracker/needsEveryFix``).
        var active: Set<Int> = []
        var lastUsable: Date?
        var unknownDeclared = false
        var changed = false
    }

    /// The rules every region is watched by.
    public let rules: MonitoringRules
    /// Where the regions and their states are kept, if anywhere.
    public let stateFile: RegionStateFile?
    /// What was found in the state file when the monitor was made.
    public let restoration: RegionStateFile.Restoration

    let state = Locked(State())
    /// Held while the state file is written, so that two writes do not cross; counts the writes
    /// (a lock of `()` is reported as racing by ThreadSanitizer, see ChildProcess's `spawning`).
    private let saving = Locked(0)
    private let continuation: AsyncStream<RegionEvent>.Continuation
    /// The manager this monitor follows when `LocationManager.monitor(rules:rate:now:)` made it: kept
    /// until ``finish()`` or the monitor's release.
    let attachment = Locked<Following?>(nil)

    /// Every event, in order, as an `AsyncSequence` (for one consumer, as `CLMonitor.events`).
    public let events: AsyncStream<RegionEvent>

    /// A monitor watching by `rules`, keeping nothing across runs.
    public convenience init(rules: MonitoringRules = MonitoringRules()) {
        self.init(rules: rules, file: nil, restoration: .fresh, saved: [])
    }

    /// A monitor watching by `rules`, keeping its regions and their states in the file at
    /// `stateFile`, and starting with those it holds.
    ///
    /// A state file that cannot be read as one is set aside (renamed, never overwritten), and the
    /// monitor starts without regions: ``restoration`` says so, with the reason and the new name.
    ///
    /// - Throws: ``RegionStateFile/Failure`` when the state file exists but cannot be read, or a
    ///   damaged one cannot be set aside.
    public convenience init(rules: MonitoringRules = MonitoringRules(), stateFile: String) throws(RegionStateFile.Failure) {
        let file = RegionStateFile(path: stateFile)
        let (restoration, saved) = try file.load()
        self.init(rules: rules, file: file, restoration: restoration, saved: saved)
    }

    private init(rules: MonitoringRules, file: RegionStateFile?, restoration: RegionStateFile.Restoration, saved: [RegionStateFile.SavedRegion]) {
        self.rules = rules
        stateFile = file
        self.restoration = restoration
        (events, continuation) = AsyncStream.makeStream(of: RegionEvent.self)
        state.withLock { state in
            for region in saved {
                var tracker = RegionTracker(identifier: region.identifier, condition: region.condition, assuming: region.state ?? .unknown)
                tracker.satisfiedSince = region.satisfiedSince
                tracker.dwelt = region.dwelt
                Self.insert(tracker, into: &state, rules: rules)
            }
        }
    }

    deinit {
        continuation.finish()
    }

    // MARK: - Regions

    /// Watches `condition` as `identifier`, starting in the state `assuming` says (as
    /// `CLMonitor.add(_:identifier:assuming:)`): `.satisfied` for a region the device is known to
    /// be in (an anchor just dropped), so that the first fixes make no enter. `rules`, when given,
    /// take the place of the monitor's for this region (hysteresis, confirmation, dwell, and a
    /// maximum accuracy, which can only be stricter than the monitor's: a fix the monitor finds
    /// unusable reaches no region; ``MonitoringRules/unknownAfter`` is the monitor's). An anchor
    /// makes dwell events only when its own `rules` have a ``MonitoringRules/dwell`` (rules made
    /// with `MonitoringRules()` do: 60 s; give `dwell: nil` for none).
    ///
    /// A region restored from the state file under the same identifier and with the same condition
    /// keeps its state (and `assuming` is not used); with another condition it is replaced.
    public func add(_ condition: RegionCondition, identifier: String, assuming: RegionState = .unknown, rules: MonitoringRules? = nil) {
        state.withLock { state in
            if let slot = state.byIdentifier[identifier] {
                if var kept = state.slots[slot], kept.condition == condition {
                    guard kept.rules != rules else { return }
                    Self.remove(slot, from: &state)
                    kept.rules = rules
                    Self.insert(kept, into: &state, rules: self.rules)
                    return
                }
                Self.remove(slot, from: &state)
            }
            var tracker = RegionTracker(identifier: identifier, condition: condition, assuming: assuming)
            tracker.rules = rules
            Self.insert(tracker, into: &state, rules: self.rules)
            state.changed = true
        }
        saveIfChanged()
    }

    /// Stops watching `identifier`; it is forgotten (and taken out of the state file).
    public func remove(_ identifier: String) {
        state.withLock { state in
            guard let slot = state.byIdentifier[identifier] else { return }
            Self.remove(slot, from: &state)
            state.changed = true
        }
        saveIfChanged()
    }

    /// What the monitor knows of `identifier`, or `nil` when it watches no such region.
    public func record(for identifier: String) -> RegionRecord? {
        state.withLock { state in state.byIdentifier[identifier].flatMap { state.slots[$0]?.record } }
    }

    /// The identifiers of every region watched, in the order they were added.
    public var identifiers: [String] {
        state.withLock { state in state.slots.compactMap { $0?.identifier } }
    }

    private static func insert(_ tracker: RegionTracker, into state: inout State, rules: MonitoringRules) {
        let slot: Int
        if let free = state.free.popLast() {
            slot = free
            state.slots[slot] = tracker
        } else {
            slot = state.slots.count
            state.slots.append(tracker)
        }
        state.byIdentifier[tracker.identifier] = slot
        let rules = tracker.rules ?? rules
        state.index.insert(slot, box: tracker.condition.boundingBox.expanded(by: rules.maximumAccuracy + rules.hysteresis + 1))
        if tracker.needsEveryFix { state.active.insert(slot) }
    }

    private static func remove(_ slot: Int, from state: inout State) {
        guard let tracker = state.slots[slot] else { return }
        state.byIdentifier[tracker.identifier] = nil
        state.slots[slot] = nil
        state.free.append(slot)
        state.index.remove(slot)
        state.active.remove(slot)
    }

    // MARK: - Fixes and time

    /// Takes one fix: updates every region it can decide, sends the events it makes to
    /// ``events`` and returns them. Its time is the fix's `time` (else its `receivedAt`). A fix
    /// without a usable position (no fix, off the Earth, or less accurate than
    /// ``MonitoringRules/maximumAccuracy``) decides nothing, but its time counts for
    /// ``MonitoringRules/unknownAfter``.
    @discardableResult
    public func process(_ fix: Location) -> [RegionEvent] {
        let date = fix.time ?? fix.receivedAt
        let accuracy = fix.horizontalAccuracy ?? rules.accuracyWhenUnreported
        let usable = fix.mode != .noFix && fix.hasValidCoordinates && accuracy.isFinite && accuracy <= rules.maximumAccuracy
        let point = GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude)
        let events = state.withLock { state in
            var events = Self.expire(&state, at: date, rules: rules)
            guard usable else { return events }
            state.lastUsable = date
            state.unknownDeclared = false
            var near = Set(state.index.candidates(near: point))
            near.formUnion(state.active)
            for slot in near.sorted() {
                guard var tracker = state.slots[slot] else { continue }
                let box = tracker.condition.boundingBox.expanded(by: accuracy + (tracker.rules ?? rules).hysteresis + 1)
                // A circle over the antimeridian has a box past ±180: no quick answer for it.
                let farAway = box.minLongitude >= -180 && box.maxLongitude <= 180 && !box.contains(point)
                let made = tracker.update(with: fix, point: point, date: date, accuracy: accuracy, rules: rules, farAway: farAway)
                if made.contains(where: { $0.kind != .cross && $0.kind != .dwell }) || tracker.proven != state.slots[slot]?.proven {
                    state.changed = true
                }
                if made.contains(where: { $0.kind == .dwell }) { state.changed = true }
                state.slots[slot] = tracker
                if tracker.needsEveryFix { state.active.insert(slot) } else { state.active.remove(slot) }
                events += made
            }
            // Yielding only buffers the events for the consumer (no code of its runs here); done
            // under the lock, they keep the order the fixes made them in.
            for event in events { continuation.yield(event) }
            return events
        }
        saveIfChanged()
        return events
    }

    /// Says that time has reached `date` with no fix since the last: past
    /// ``MonitoringRules/unknownAfter`` since the last usable fix, every area becomes unknown.
    /// Returns the events it made (also sent to ``events``).
    @discardableResult
    public func check(at date: Date) -> [RegionEvent] {
        let events = state.withLock { state in
            let events = Self.expire(&state, at: date, rules: rules)
            for event in events { continuation.yield(event) }
            return events
        }
        saveIfChanged()
        return events
    }

    private static func expire(_ state: inout State, at date: Date, rules: MonitoringRules) -> [RegionEvent] {
        guard !state.unknownDeclared, let last = state.lastUsable, date.timeIntervalSince(last) >= rules.unknownAfter.seconds else {
            return []
        }
        state.unknownDeclared = true
        let moment = last.addingTimeInterval(rules.unknownAfter.seconds)
        var events: [RegionEvent] = []
        for slot in state.slots.indices {
            guard var tracker = state.slots[slot] else { continue }
            events += tracker.becomeUnknown(at: moment)
            state.slots[slot] = tracker
            if tracker.needsEveryFix { state.active.insert(slot) }
        }
        return events
    }

    /// Ends ``events``: a consumer's loop over it ends. A monitor made by
    /// `LocationManager.monitor(rules:rate:now:)` stops following the manager.
    public func finish() {
        attachment.withLock { $0 }?.cancel()
        continuation.finish()
    }

    // MARK: - Saving

    private func saveIfChanged() {
        guard let stateFile else { return }
        saving.withLock { writes in
            let snapshot: [RegionStateFile.SavedRegion]? = state.withLock { state in
                guard state.changed else { return nil }
                state.changed = false
                return state.slots.compactMap { tracker in
                    tracker.map {
                        RegionStateFile.SavedRegion(
                            identifier: $0.identifier, condition: $0.condition, state: $0.proven, satisfiedSince: $0.satisfiedSince, dwelt: $0.dwelt)
                    }
                }
            }
            guard let snapshot else { return }
            do throws(RegionStateFile.Failure) {
                try stateFile.save(snapshot)
                writes += 1
            } catch {
                // Written again at the next change; what could not be written is said once per failure.
                state.withLock { $0.changed = true }
                saveFailures.withLock { $0.append(error) }
            }
        }
    }

    private let saveFailures = Locked<[RegionStateFile.Failure]>([])

    /// The state file writes that failed since the last call (a full disk, a folder made
    /// read-only), oldest first; the monitor goes on, and tries again at the next change.
    public func takeSaveFailures() -> [RegionStateFile.Failure] {
        saveFailures.withLock { failures in
            defer { failures = [] }
            return failures
        }
    }
}
