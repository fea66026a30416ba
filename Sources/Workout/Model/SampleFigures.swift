import Foundation

/// The figures of a run of samples of one type: how many, the last, the mean, the least and the most.
///
/// The mean is weighted by time, so that it does not depend on how often a sensor or a file
/// sampled: a sample over an interval weighs its length; an instantaneous one weighs the time
/// since the sample before it, at most ``maximumHold`` (a longer gap is a dropout, not a reading);
/// the first instantaneous sample weighs nothing. Zeros count, or not, as its ``averaging`` says
/// (``SampleAveraging``: one rule for every type); the silence of a sensor of power, cadence or
/// speed between two of its readings stands for a zero, but for the time the user paused in it
/// (``apply(_:)``). Without any weight (one sample, or values
/// added without a time) the mean is the plain arithmetic one. The live session, the store's
/// ``WorkoutStore/sampleFigures(of:)`` and laps, the importers and the exporters all use it, and
/// ``TrainingFigures`` holds a value over the same time. Peers differ: gpxpy and
/// ``TrackStatistics`` average a GPX file's points arithmetically.
///
/// ```swift
/// var heartRate: SampleFigures?
/// for sample in samples { heartRate.add(sample) }   // in time order
/// print(heartRate?.average ?? 0)
/// ```
public struct SampleFigures: Sendable, Hashable, Codable {
    /// How many samples.
    public var count: Int
    /// The last value taken.
    public var latest: Double
    /// The mean, weighted by time (see the type's description).
    public var average: Double
    /// The least value.
    public var minimum: Double
    /// The greatest value.
    public var maximum: Double
    /// Whether the mean counts zeros.
    public private(set) var averaging: SampleAveraging
    /// The seconds the mean is weighted over: the time a value held, less the time it was zero
    /// when zeros are left out.
    public var weightedTime: Double {
        averaging == .includingZeros ? heldTime : heldTime - zeroTime
    }
    /// The integral of the value over the time it held (watt-seconds, joules, for power).
    public private(set) var weightedSum = 0.0
    /// The seconds a value held, and those it was zero.
    private var heldTime = 0.0
    private var zeroTime = 0.0
    /// The plain mean of the values, and of those that are not zero.
    private var arithmeticMean: Double
    private var nonZeroCount = 0
    private var nonZeroMean = 0.0
    /// When each value held.
    private var hold = SampleHold()

    /// The longest an instantaneous value is taken to hold, seconds: 10.
    public static let maximumHold = 10.0

    /// The figures of one value, without a time.
    public init(_ value: Double, averaging: SampleAveraging = .default) {
        count = 1
        latest = value
        average = value
        minimum = value
        maximum = value
        arithmeticMean = value
        self.averaging = averaging
        if value != 0 { (nonZeroCount, nonZeroMean) = (1, value) }
        settle()
    }

    /// The figures of one sample.
    public init(_ sample: QuantitySample, averaging: SampleAveraging = .default) {
        self.init(sample.value, averaging: averaging)
        note(sample)
        settle()
    }

    /// Adds the next value, without a time: it weighs nothing in a mean that has weights.
    public mutating func add(_ value: Double) {
        count += 1
        latest = value
        arithmeticMean += (value - arithmeticMean) / Double(count)
        if value != 0 {
            nonZeroCount += 1
            nonZeroMean += (value - nonZeroMean) / Double(nonZeroCount)
        }
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        settle()
    }

    /// Adds the next sample (samples come in time order).
    public mutating func add(_ sample: QuantitySample) {
        note(sample)
        add(sample.value)
    }

    /// Takes the user's `pause` or `resume` (other events change nothing): a power, cadence or
    /// speed sensor's silence while the workout is paused is no zero. Events come in time order
    /// with the samples.
    public mutating func apply(_ event: WorkoutEvent) {
        switch event.kind {
        case .pause: hold.pause(at: event.time.timeIntervalSince1970)
        case .resume: hold.resume(at: event.time.timeIntervalSince1970)
        case .lap, .marker, .motionPaused, .motionResumed: break
        }
    }

    /// Weighs the time `sample` holds over (``SampleHold``).
    private mutating func note(_ sample: QuantitySample) {
        for piece in hold.take(sample) {
            let weight = piece.length - piece.paused
            weightedSum += piece.value * weight
            heldTime += weight
            if piece.value == 0 { zeroTime += weight }
        }
    }

    private mutating func settle() {
        if weightedTime > 0 {
            average = weightedSum / weightedTime
        } else {
            average = averaging == .includingZeros || nonZeroCount == 0 ? arithmeticMean : nonZeroMean
        }
    }

    /// The figures of `values` (without times), or `nil` without any.
    public init?(_ values: some Sequence<Double>, averaging: SampleAveraging = .default) {
        var figures: SampleFigures?
        for value in values {
            if figures == nil { figures = SampleFigures(value, averaging: averaging) } else { figures?.add(value) }
        }
        guard let figures else { return nil }
        self = figures
    }

    /// The figures of `samples` (in time order), or `nil` without any.
    public init?(samples: some Sequence<QuantitySample>, averaging: SampleAveraging = .default) {
        var figures: SampleFigures?
        for sample in samples { figures.add(sample, averaging: averaging) }
        guard let figures else { return nil }
        self = figures
    }
}

extension Optional where Wrapped == SampleFigures {
    /// Adds `sample` to the figures, starting them with it (zeros counted as `averaging` says,
    /// when it starts them).
    public mutating func add(_ sample: QuantitySample, averaging: SampleAveraging = .default) {
        switch self {
        case .none: self = SampleFigures(sample, averaging: averaging)
        case var .some(figures):
            figures.add(sample)
            self = figures
        }
    }
}
