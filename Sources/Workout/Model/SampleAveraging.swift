import Foundation

/// Whether a mean counts the time a quantity was zero: the choice head units offer as "include
/// zeros" for cadence and power, made once for every type of sample.
///
/// The rule is the same for every type: a zero reading weighs its time like any other
/// (``includingZeros``), or weighs nothing (``excludingZeros``). A sensor of a quantity that is
/// zero at rest (power, cadence, speed) is often silent at rest, where another sends zeros: its
/// silence longer than ``SampleFigures/maximumHold`` between two of its readings is taken as
/// the zero it stands for, so that both kinds of sensor give the same mean. For the other types
/// (heart rate, temperature, ...) silence is no reading: a strap off the skin is not a heart rate
/// of zero. The least, the most, the count and the latest value are those of the readings, whatever
/// the rule.
///
/// A session's ``WorkoutSession/Configuration/sampleAveraging`` chooses it, and the saved
/// workout keeps it in its metadata (``metadataKey``), so that the store's figures follow it.
///
/// ```swift
/// var configuration = WorkoutSession.Configuration(activityType: .cycling)
/// configuration.sampleAveraging = .excludingZeros   // cadence and power while pedalling
/// ```
public enum SampleAveraging: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Zeros count: the mean power is the work over the time it was recorded (the default, and
    /// what FIT's `avg_power` of most devices and TrainingPeaks' average power are).
    case includingZeros = "include_zeros"
    /// Zeros weigh nothing: the mean cadence and power while pedalling.
    case excludingZeros = "exclude_zeros"

    /// The rule unless one is chosen: ``includingZeros``.
    public static let `default` = SampleAveraging.includingZeros

    /// The workout metadata key that holds the rule a workout was recorded with: `sample_averaging`,
    /// with the value `include_zeros` or `exclude_zeros`.
    public static let metadataKey = "sample_averaging"

    /// The rule `metadata` holds, or the ``default`` when it holds none (or one this version does
    /// not know).
    public init(_ metadata: WorkoutMetadata) {
        self = metadata.values[Self.metadataKey].flatMap(SampleAveraging.init(rawValue:)) ?? .default
    }

    /// The rule in words: `include zeros`.
    public var description: String {
        switch self {
        case .includingZeros: "include zeros"
        case .excludingZeros: "exclude zeros"
        }
    }
}

extension QuantityType {
    /// Whether the quantity is zero at rest, so that a sensor's silence stands for a zero: power,
    /// cadence and speed (see ``SampleAveraging``).
    var isZeroAtRest: Bool {
        switch self {
        case .power, .cadence, .speed: true
        case .heartRate, .temperature, .heartbeatInterval, .distance: false
        }
    }
}

/// The one rule for the time a sample's value holds, which ``SampleFigures`` weighs its mean by
/// and ``TrainingFigures`` makes its 1-second series with: a sample over an interval holds over
/// it; an instantaneous one holds from the sample before it, at most ``SampleFigures/maximumHold``
/// back (a longer gap is silence); the first instantaneous sample holds over nothing. Silence
/// between two readings of a quantity that is zero at rest holds a zero, but for the time the
/// user paused in it (the workout stood still, not the athlete: ``pause(at:)``).
struct SampleHold: Sendable, Hashable, Codable {
    /// A stretch of time, seconds since 1970, and the value that holds over it; of a silence,
    /// the seconds of it the user paused, which weigh nothing.
    struct Piece: Sendable, Hashable {
        var from: Double
        var to: Double
        var value: Double
        var paused = 0.0
        var length: Double { to - from }
    }

    /// A pause of the user's: from, to (`nil` while it lasts).
    private struct Pause: Sendable, Hashable, Codable {
        var from: Double
        var to: Double?
    }

    /// The end of the last reading, seconds since 1970.
    private(set) var lastEnd: Double?
    /// The user's pauses since the last reading.
    private var pauses: [Pause] = []

    /// The user paused at `time`.
    mutating func pause(at time: Double) {
        guard pauses.last.map({ $0.to != nil }) ?? true else { return }
        pauses.append(Pause(from: time))
    }

    /// The user resumed at `time`.
    mutating func resume(at time: Double) {
        guard let last = pauses.indices.last, pauses[last].to == nil else { return }
        pauses[last].to = max(time, pauses[last].from)
    }

    /// The seconds of `from ... to` the user paused.
    private func paused(from: Double, to: Double) -> Double {
        pauses.reduce(0) { sum, pause in sum + max(0, min(to, pause.to ?? to) - max(from, pause.from)) }
    }

    /// What one sample holds over: the silence before it (a zero, for a type that is zero at
    /// rest), then its own piece; either may be absent. (Two optionals, not an array: the live
    /// session takes every sample through here, and an array a sample is an allocation a sample.)
    struct Pieces: Sendable, Sequence, IteratorProtocol {
        var silence: Piece?
        var reading: Piece?

        mutating func next() -> Piece? {
            if let piece = silence {
                silence = nil
                return piece
            }
            defer { reading = nil }
            return reading
        }
    }

    /// The pieces `sample` holds over, in time order: the silence before it (a zero, for a type that
    /// is zero at rest) and its own.
    mutating func take(_ sample: QuantitySample) -> Pieces {
        let start = sample.start.timeIntervalSince1970, end = sample.end.timeIntervalSince1970
        defer {
            lastEnd = max(lastEnd ?? end, end)
            if !pauses.isEmpty, let lastEnd { pauses.removeAll { pause in pause.to.map { $0 <= lastEnd } ?? false } }
        }
        guard let last = lastEnd else {
            return Pieces(reading: end > start ? Piece(from: start, to: end, value: sample.value) : nil)
        }
        let from = end > start ? start : max(last, end - SampleFigures.maximumHold)
        var pieces = Pieces()
        if sample.type.isZeroAtRest, from > last {
            pieces.silence = Piece(from: last, to: from, value: 0, paused: paused(from: last, to: from))
        }
        if end > max(from, last) { pieces.reading = Piece(from: max(from, last), to: end, value: sample.value) }
        return pieces
    }
}
