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
    /// Stops measuring and ends the stream.
    func stop()
}

/// A heart-rate sensor: any ``SampleSource`` (the name the first sessions used).
@available(*, deprecated, renamed: "SampleSource")
public typealias HeartRateSource = SampleSource
