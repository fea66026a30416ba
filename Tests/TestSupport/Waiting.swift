import Testing

/// Yields until `condition` holds (a bounded number of times), instead of sleeping: for state that
/// another task changes without an event to wait on, such as a request reaching a manager.
public func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    for _ in 0..<200_000 {
        if condition() { return }
        await Task.yield()
    }
    Issue.record("condition never held", sourceLocation: sourceLocation)
}

/// Yields until `condition` holds (a bounded number of times): for state another process
/// changes, read back each time (a store file another process writes).
public func waitUntil(_ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async rethrows {
    for _ in 0..<200_000 {
        if try await condition() { return }
        await Task.yield()
    }
    Issue.record("condition never held", sourceLocation: sourceLocation)
}
