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
    /// The rules every region is watched by.
    public let rules: MonitoringRules
    /// Where the regions and their states are kept, if anywhere.
    public let stateFile: RegionStateFile?
    /// What was found in the state file when the monitor was made.
    public let restoration: RegionStateFile.Restoration

    /// What it decides: each input taken under this lock, its actions carried out here.
    let machine: Locked<RegionMonitorMachine>
    /// The state file's writes, one at a time (see ``save(_:)``).
    private let saving = Locked(Saving())
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
        machine = Locked(RegionMonitorMachine(rules: rules, saved: saved))
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
        carryOut(machine.withLock { $0.add(condition, identifier: identifier, assuming: assuming, rules: rules) })
    }

    /// Stops watching `identifier`; it is forgotten (and taken out of the state file).
    public func remove(_ identifier: String) {
        carryOut(machine.withLock { $0.remove(identifier) })
    }

    /// What the monitor knows of `identifier`, or `nil` when it watches no such region.
    public func record(for identifier: String) -> RegionRecord? {
        machine.withLock { $0.record(for: identifier) }
    }

    /// The identifiers of every region watched, in the order they were added.
    public var identifiers: [String] {
        machine.withLock { $0.identifiers }
    }

    // MARK: - Fixes and time

    /// Takes one fix: updates every region it can decide, sends the events it makes to
    /// ``events`` and returns them. Its time is the fix's `time` (else its `receivedAt`). A fix
    /// without a usable position (no fix, off the Earth, or less accurate than
    /// ``MonitoringRules/maximumAccuracy``) decides nothing, but its time counts for
    /// ``MonitoringRules/unknownAfter``.
    @discardableResult
    public func process(_ fix: Location) -> [RegionEvent] {
        carryOut(machine.withLock { machine in
            let actions = machine.process(fix)
            // Yielding only buffers the events for the consumer (no code of its runs here); done
            // under the lock, they keep the order the fixes made them in.
            for event in actions.events { continuation.yield(event) }
            return actions
        })
    }

    /// Says that time has reached `date` with no fix since the last: past
    /// ``MonitoringRules/unknownAfter`` since the last usable fix, every area becomes unknown.
    /// Returns the events it made (also sent to ``events``).
    @discardableResult
    public func check(at date: Date) -> [RegionEvent] {
        carryOut(machine.withLock { machine in
            let actions = machine.check(at: date)
            for event in actions.events { continuation.yield(event) }
            return actions
        })
    }

    /// Writes what the actions say to keep (or, after a write that failed, what stands now), and
    /// returns their events.
    @discardableResult
    private func carryOut(_ actions: RegionMonitorMachine.Actions) -> [RegionEvent] {
        guard stateFile != nil else { return actions.events }
        if let snapshot = actions.save {
            save(snapshot)
        } else if saving.withLock({ $0.failed }) {
            save(machine.withLock { $0.snapshot() })
        }
        return actions.events
    }

    /// Ends ``events``: a consumer's loop over it ends. A monitor made by
    /// `LocationManager.monitor(rules:rate:now:)` stops following the manager.
    public func finish() {
        attachment.withLock { $0 }?.cancel()
        continuation.finish()
    }

    // MARK: - Saving

    /// The writes of the state file: the newest version written, and whether the last failed (then
    /// the next input writes the regions as they stand, changed or not).
    private struct Saving {
        var written = 0
        var failed = false
    }

    /// Writes `snapshot`, unless a newer one is written already (two inputs on two threads may
    /// carry theirs out in either order; the lock keeps two writes from crossing).
    private func save(_ snapshot: RegionMonitorMachine.Snapshot) {
        guard let stateFile else { return }
        saving.withLock { saving in
            guard snapshot.version > saving.written else { return }
            do throws(RegionStateFile.Failure) {
                try stateFile.save(snapshot.regions)
                saving.written = snapshot.version
                saving.failed = false
            } catch {
                // Written again at the next input; what could not be written is said once per failure.
                saving.failed = true
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
