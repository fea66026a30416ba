import Foundation

/// A heart-rate sensor a ``WorkoutSession`` reads (a chest strap, a watch, or a fake): started
/// with the session, stopped when it ends.
public protocol HeartRateSource: Sendable {
    /// Starts measuring: the samples as they are measured, until ``stop()`` ends the stream.
    func start() -> AsyncStream<QuantitySample>
    /// Stops measuring and ends the stream.
    func stop()
}
