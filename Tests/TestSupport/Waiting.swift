import Testing

/// Waits until `condition` holds, for state that another task or thread changes without an event
/// to wait on (a request reaching a manager, a session's writer settling). Checks at once, then
/// after each of a few yields, then every millisecond, so that the waiter does not keep a thread
/// of the concurrency pool busy while the work it waits for needs one (the pool has one thread
/// per core: two here). Records an issue if the condition does not hold within `limit` of real
/// time, which is far longer than any such wait takes: it only keeps a failing test from
/// waiting for its time limit without saying what it waited for.
public func waitUntil(
    limit: Duration = .seconds(30), _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async {
    let deadline = ContinuousClock.now.advanced(by: limit)
    var checks = 0
    while !condition() {
        guard ContinuousClock.now < deadline, !Task.isCancelled else {
            Issue.record("condition never held (waited \(limit))", sourceLocation: sourceLocation)
            return
        }
        checks += 1
        if checks < 100 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// Waits until `condition` holds, for state another process changes (a store file another process
/// writes), read back each time; as ``waitUntil(limit:_:sourceLocation:)``.
public func waitUntil(
    limit: Duration = .seconds(30), _ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async rethrows {
    let deadline = ContinuousClock.now.advanced(by: limit)
    var checks = 0
    while try await !condition() {
        guard ContinuousClock.now < deadline, !Task.isCancelled else {
            Issue.record("condition never held (waited \(limit))", sourceLocation: sourceLocation)
            return
        }
        checks += 1
        if checks < 100 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// Runs `operation`, and records an issue naming `step` if it has not ended within `limit` of
/// real time; it goes on waiting for it all the same. A wait that does not end (or does not end
/// when the test is cancelled at its time limit) then says which one it was: the time limit's
/// own issue names only the test.
public func step<T>(
    _ step: String, limit: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: () async throws -> T
) async rethrows -> T {
    // Not cancelled with the test: the issue is recorded even when a wait past the time limit
    // ignores the cancellation.
    let watchdog = Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        Issue.record("\(step): not ended after \(limit)", sourceLocation: sourceLocation)
    }
    defer { watchdog.cancel() }
    return try await operation()
}
