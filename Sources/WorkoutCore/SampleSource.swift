/// A sensor a `WorkoutSession` (in `Workout`) reads samples from (a heart-rate strap, a cadence
/// or power sensor, a wheel sensor's speed, or a fake): started with the session, stopped when it
/// ends. A session takes any number of them, of any ``QuantityType``; each sample is written with the
/// route and shown live (`WorkoutSession.Statistics.samples`), per lap too.
///
/// ```swift
/// final class Strap: SampleSource {
///     func start() -> AsyncStream<QuantitySample> { AsyncStream { _ in } }   // a sample per beat interval
///     func stop() {}                                                          // ends the stream
/// }
/// let session = WorkoutSession(store: store, source: gps, samples: [Strap()], configuration: .init(activityType: .running))
/// ```
///
/// ``stop()`` must end the stream: a session ending waits up to 2 s for it (its last samples),
/// then reads it no further. A session keeps a sample only if it is after the last of its type (`InputIssue.sampleNotAfterLast`)
/// and its value is possible for its type (`InputIssue.invalidSample`). Samples dated before the
/// first fix or after the last are not the workout's: they are left out when it is saved.
public protocol SampleSource: Sendable {
    /// Starts measuring: the samples as they are measured, until ``stop()`` ends the stream.
    func start() -> AsyncStream<QuantitySample>
    /// Starts measuring, handing each sample to `deliver` where it is measured (on the thread
    /// that measured it, one at a time, in order) rather than through a stream, until ``stop()``;
    /// a delivery under way when `stop()` is called may still end. Returns `false` for a source
    /// that has only ``start()`` (the default): a session then reads that stream.
    ///
    /// A session takes a delivered sample at once, in its place among the fixes; one read from a
    /// stream waits for the session's reading task, which a busy machine (or a `VirtualClock`
    /// moved an hour at once) may hold back past the fixes that came after it.
    func start(delivering deliver: @escaping @Sendable (QuantitySample) -> Void) -> Bool
    /// Stops measuring and ends the stream.
    func stop()
}

extension SampleSource {
    /// A source that only has ``start()``'s stream.
    public func start(delivering deliver: @escaping @Sendable (QuantitySample) -> Void) -> Bool {
        false
    }
}

/// A heart-rate sensor: any ``SampleSource`` (the name the first sessions used).
@available(*, deprecated, renamed: "SampleSource")
public typealias HeartRateSource = SampleSource
