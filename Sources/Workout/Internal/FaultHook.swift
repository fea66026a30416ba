/// A moment inside a store call at which an installed fault may strike. Every moment lies inside
/// the call's write transaction, so a fault there rolls the whole call back.
package enum FaultPoint: Sendable, Hashable, CustomStringConvertible {
    /// `operation` is about to write (its transaction is open, nothing written yet). Inside
    /// ``WorkoutStore/saveWorkout(_:samples:route:routeMetadata:)`` each part of the run reports
    /// the chain step it stands for: `.save`, `.addSamples`, `.insertRouteData`, `.finishRoute`.
    case begin(StoreOperation)
    /// `operation` is about to write its `number`th row (from 1) of this call.
    case row(StoreOperation, number: Int)
    /// `operation` has written everything and is about to commit.
    case commit(StoreOperation)

    /// The operation the moment belongs to.
    package var operation: StoreOperation {
        switch self {
        case let .begin(operation), let .row(operation, _), let .commit(operation): operation
        }
    }

    package var description: String {
        switch self {
        case let .begin(operation): "before \(operation) writes"
        case let .row(operation, number): "row \(number) of \(operation)"
        case let .commit(operation): "commit of \(operation)"
        }
    }
}

/// What a store asks at each ``FaultPoint`` when faults are installed (`Simulators.StoreFaults`
/// is the implementation users get). A store without a hook never builds a fault point: the
/// production path pays one `nil` check per call and per row.
package protocol StoreFaultHook: Sendable {
    /// Throws the error to fail with at `point`, or returns to let the store go on.
    /// `path` is the store's file (`nil` in memory).
    func reach(_ point: FaultPoint, path: String?) throws(WorkoutStoreError)
}
