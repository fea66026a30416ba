import Foundation
import GPSCore
import SimulatorsCore
import Workout

/// Makes a `WorkoutStore` fail on demand, deterministically: a given step of the save chain,
/// the Nth row a step writes, the Nth row written overall, or a commit. For tests of code that
/// saves workouts, ours and yours.
///
/// ```swift
/// let faults = StoreFaults()
/// let store = try WorkoutStore.inMemory(faults: faults)
/// faults.inject(.beforeWriting(.addSamples))
/// await #expect(throws: WorkoutStoreError.self) {
///     try await store.saveWorkout(run, samples: heartRate, route: fixes)
/// }
/// #expect(try await store.workoutCount() == 0)      // nothing of the run remains
/// ```
///
/// A fault strikes inside the call's transaction, as a real failure (disk full, I/O error) would,
/// so the store rolls the call back; the call throws the fault's error. Each injected fault
/// strikes `times` times (once by default), then lets calls through. Inside
/// `WorkoutStore/saveWorkout(_:samples:route:routeMetadata:)` each part of the run counts as
/// the chain step it stands for (`.save`, `.addSamples`, `.insertRouteData`, `.finishRoute`), and
/// its commit as `.saveWorkout`.
public final class StoreFaults: Sendable {
    /// Where a fault strikes.
    public enum Trigger: Sendable, Hashable, CustomStringConvertible {
        /// When `operation` is about to write: its transaction is open, nothing written yet.
        case beforeWriting(StoreOperation)
        /// Before the `number`th row (from 1) one call of `operation` writes (a workout, a
        /// sample, a route point).
        case row(Int, of: StoreOperation)
        /// Before the `number`th row written by the store overall (from 1, counted from the
        /// moment this `StoreFaults` was made; rows of calls that failed count too).
        case write(Int)
        /// After `operation` has written everything, as its transaction commits.
        case commit(of: StoreOperation)

        /// The trigger in words: "row 3 of addSamples(_:to:)".
        public var description: String {
            switch self {
            case let .beforeWriting(operation): "before \(operation) writes"
            case let .row(number, operation): "row \(number) of \(operation)"
            case let .write(number): "write \(number)"
            case let .commit(operation): "commit of \(operation)"
            }
        }
    }

    /// A fault that struck: where, and the error the call threw.
    public struct Strike: Sendable, Hashable {
        /// The trigger that matched.
        public var trigger: Trigger
        /// The error thrown.
        public var error: WorkoutStoreError
    }

    private struct Armed {
        var trigger: Trigger
        var error: WorkoutStoreError?
        var remaining: Int
    }

    private struct State {
        var armed: [Armed] = []
        var writes = 0
        var strikes: [Strike] = []
    }

    private let state = Locked(State())

    /// No faults yet: a store using it behaves normally until ``inject(_:error:times:)``.
    public init() {}

    /// Makes the store fail at `trigger`, `times` times, with `error`; by default
    /// `WorkoutStoreError/databaseFailed(operation:path:reason:)` naming the operation and
    /// saying the fault was injected.
    public func inject(_ trigger: Trigger, error: WorkoutStoreError? = nil, times: Int = 1) {
        state.withLock { $0.armed.append(Armed(trigger: trigger, error: error, remaining: max(1, times))) }
    }

    /// Removes every fault not yet spent; the store behaves normally again.
    public func removeAll() {
        state.withLock { $0.armed.removeAll() }
    }

    /// The faults that struck so far, in order.
    public var strikes: [Strike] {
        state.withLock { $0.strikes }
    }

    /// How many rows the store has been about to write so far (what ``Trigger/write(_:)`` counts).
    public var writes: Int {
        state.withLock { $0.writes }
    }
}

extension StoreFaults: StoreFaultHook {
    package func reach(_ point: FaultPoint, path: String?) throws(WorkoutStoreError) {
        let error: WorkoutStoreError? = state.withLock { state in
            if case .row = point { state.writes += 1 }
            let writes = state.writes
            guard let index = state.armed.firstIndex(where: { Self.matches($0.trigger, point, writes: writes) }) else {
                return nil
            }
            let armed = state.armed[index]
            state.armed[index].remaining -= 1
            if state.armed[index].remaining == 0 { state.armed.remove(at: index) }
            let error = armed.error ?? .databaseFailed(
                operation: point.operation, path: path, reason: "disk I/O error (injected by StoreFaults, \(armed.trigger))")
            state.strikes.append(Strike(trigger: armed.trigger, error: error))
            return error
        }
        if let error { throw error }
    }

    private static func matches(_ trigger: Trigger, _ point: FaultPoint, writes: Int) -> Bool {
        switch (trigger, point) {
        case let (.beforeWriting(operation), .begin(reached)): operation == reached
        case let (.row(number, operation), .row(reached, rowNumber)): operation == reached && number == rowNumber
        case let (.write(number), .row): number == writes
        case let (.commit(operation), .commit(reached)): operation == reached
        default: false
        }
    }
}

extension WorkoutStore {
    /// A new, empty in-memory store that fails as `faults` says.
    public static func inMemory(faults: StoreFaults) throws(WorkoutStoreError) -> WorkoutStore {
        try WorkoutStore(path: nil, faultHook: faults, logger: WorkoutStore.defaultLogger)
    }

    /// Opens the store at `path`, failing as `faults` says.
    public convenience init(path: String, faults: StoreFaults) throws(WorkoutStoreError) {
        try self.init(path: path, faultHook: faults, logger: WorkoutStore.defaultLogger)
    }
}
