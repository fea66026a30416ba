#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a ``LocationPublisher`` stands: what waits, what went, what went wrong.
public struct PublisherStatus: Sendable, Hashable {
    /// Positions waiting for at least one destination (in the outbox, and the newest kept in
    /// memory when the outbox cannot be written).
    public var queued: Int
    /// The time of the oldest position not yet delivered everywhere.
    public var oldestUnsent: Date?
    /// The time of the last position a destination acknowledged.
    public var lastSent: Date?
    /// Acknowledgements received since the publisher started (one per position and destination).
    public var sent: Int
    /// Positions dropped since the outbox opened: the oldest, when it was full, and the held newest
    /// replaced by a newer while the disk was full.
    public var dropped: Int
    /// Positions a destination refused (``PublishError/rejected(destination:reason:)``), dropped.
    public var rejected: Int
    /// The last delivery error, until a delivery succeeds.
    public var lastError: PublishError?
    /// The outbox's error (a full disk), until an append succeeds.
    public var outboxError: OutboxError?
    /// Whether the publisher has finished (drained, or stopped).
    public var isFinished: Bool

    /// A status with every count zero.
    public init(
        queued: Int = 0, oldestUnsent: Date? = nil, lastSent: Date? = nil, sent: Int = 0, dropped: Int = 0, rejected: Int = 0,
        lastError: PublishError? = nil, outboxError: OutboxError? = nil, isFinished: Bool = false
    ) {
        self.queued = queued
        self.oldestUnsent = oldestUnsent
        self.lastSent = lastSent
        self.sent = sent
        self.dropped = dropped
        self.rejected = rejected
        self.lastError = lastError
        self.outboxError = outboxError
        self.isFinished = isFinished
    }
}

/// How long to wait before trying a destination again after a failure: `initial`, multiplied by
/// `multiplier` after each failure in a row, at most `maximum`; back to `initial` after a success.
public struct Backoff: Sendable, Hashable {
    public var initial: Duration
    public var maximum: Duration
    public var multiplier: Double

    /// 1 s, doubling, at most 60 s.
    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60), multiplier: Double = 2) {
        precondition(initial > .zero && maximum >= initial && multiplier >= 1, "a backoff grows from a positive initial delay")
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
    }

    /// The delay after `failures` failures in a row (1: the first).
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initial
        var count = 1
        while count < failures && delay < maximum {
            delay = delay * multiplier
            count += 1
        }
        return min(delay, maximum)
    }
}
