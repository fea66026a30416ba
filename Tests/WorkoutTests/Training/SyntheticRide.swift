import Foundation
import Workout

/// A one-hour ride to measure training figures on: a 10-minute warm-up from 150 W to 200 W, five
/// intervals of 4 minutes at 320 W with 3 minutes at 140 W between, then 180 W; 20 s of coasting
/// (0 W) at the end of every 5 minutes; a slow swing of 15 W. The heart rate follows
/// the power with a 30 s lag, from 95 bpm.
enum SyntheticRide {
    static let start = Date(timeIntervalSince1970: 1_714_557_600)   // 2024-05-01T10:00:00Z
    static let seconds = 3_600

    /// The power over second `second` (0 ..< 3600).
    static func power(at second: Int) -> Double {
        if second % 300 >= 280 { return 0 }
        // A slow swing of ±15 W (47 s round): second by second a power meter's readings change
        // gently, and two ways of laying samples on seconds (sweat's, ours) see the same values.
        let noise = 15 * sin(2 * Double.pi * Double(second) / 47)
        switch second {
        case ..<600: return 150 + Double(second) / 600 * 50 + noise
        case ..<(600 + 5 * 420): return ((second - 600) % 420 < 240 ? 320 : 140) + noise
        default: return 180 + noise
        }
    }

    /// The heart rate at each second, following the power.
    static let heartRates: [Double] = {
        var rate = 95.0
        return (0..<seconds).map { second in
            rate += (90 + 0.3 * power(at: second) - rate) / 30
            return rate.rounded()
        }
    }()

    /// One power and one heart-rate sample a second, at 0 ... 3600 s (the sample at `s` is the
    /// power over the second before it, as a head unit records it).
    static func oneHertz() -> [QuantitySample] {
        (0...seconds).flatMap { second -> [QuantitySample] in
            let time = start.addingTimeInterval(Double(second))
            let index = max(0, second - 1)
            return [
                QuantitySample(type: .power, value: power(at: index), at: time),
                QuantitySample(type: .heartRate, value: heartRates[index], at: time),
            ]
        }
    }

    /// Power at about 2 Hz, irregularly (0.4 to 0.6 s apart), with dropouts of 4 s and 7 s (the
    /// value before holds over them) and one of 25 s (past the 10 s hold); heart rate once a second.
    static let dropouts: [Range<Double>] = [1_200..<1_204, 2_000..<2_007, 2_500..<2_525]

    static func irregular() -> [QuantitySample] {
        var samples: [QuantitySample] = []
        var time = 0.0
        var step = 0
        while time <= Double(seconds) {
            if !dropouts.contains(where: { $0.contains(time) }) {
                samples.append(QuantitySample(
                    type: .power, value: power(at: min(seconds - 1, Int(time))), at: start.addingTimeInterval(time)))
            }
            step += 1
            time += 0.4 + Double((step * 37) % 21) / 100
        }
        for second in 0...seconds {
            samples.append(QuantitySample(
                type: .heartRate, value: heartRates[min(seconds - 1, second)], at: start.addingTimeInterval(Double(second))))
        }
        return samples.sorted { $0.end < $1.end }
    }

    /// `samples` as sweat takes them: `[seconds from the start, value]` of one type.
    static func pairs(_ samples: [QuantitySample], _ type: QuantityType) -> [[Double]] {
        samples.filter { $0.type == type }.map { [$0.end.timeIntervalSince(start), $0.value] }
    }

    /// The figures of `samples` (and `events`), fed in time order over the ride.
    static func figures(
        _ samples: [QuantitySample], events: [WorkoutEvent] = [], profile: TrainingProfile, end: Date? = nil
    ) -> TrainingFigures {
        var figures = TrainingFigures(profile: profile, start: start)
        var events = events[...]
        for sample in samples {
            while let event = events.first, event.time <= sample.end {
                figures.apply(event)
                events = events.dropFirst()
            }
            figures.add(sample)
        }
        events.forEach { figures.apply($0) }
        figures.finish(at: end ?? start.addingTimeInterval(Double(seconds)))
        return figures
    }
}
