import GPSCore
import WorkoutCore

/// One series per sample type per device: a device that measures a thing twice (a trainer that is
/// a power meter too, with Fitness Machine and Cycling Power services; a bike with a cadence sensor
/// and a power meter's crank) gives it from one characteristic at a time, the best that has given
/// it in the last ``hold``. A session drops a sample that is not after the last of its type, but
/// two interleaved series would still be a zigzag of two devices' rounding and timing.
///
/// Best first, for each type (``rank(of:for:)``):
/// - power: Cycling Power, then Indoor Bike Data (a trainer's power meter proper, which also
///   counts the crank's revolutions);
/// - cadence: CSC, then Cycling Power's crank, then RSC, then Indoor Bike Data (counted
///   revolutions before a machine's figure);
/// - speed and distance: Indoor Bike Data and Treadmill Data, then RSC, then CSC, then Cycling
///   Power's wheel (a machine's own speed, by its own calibration, before a wheel read through a
///   circumference we were told);
/// - heart rate: the Heart Rate service, then a machine's (hand grips, or a strap it reads), which
///   also waits while any strap this process reads on the same bus gives one (``StrapHeartRates``).
struct SampleSelection: Sendable {
    /// The characteristics that give samples.
    enum Source: Sendable, Hashable {
        case heartRate, cyclingSpeedAndCadence, cyclingPower, runningSpeedAndCadence, indoorBike, treadmill
    }

    /// How long a source keeps a type after its last sample of it: past that, the next best takes over.
    static let hold = Duration.seconds(5)

    private var claims: [QuantityType: (rank: Int, at: Duration)] = [:]

    /// Where `source` stands for `type`, 0 the best; `nil` when it gives none.
    static func rank(of source: Source, for type: QuantityType) -> Int? {
        let order: [Source]
        switch type {
        case .power: order = [.cyclingPower, .indoorBike]
        case .cadence: order = [.cyclingSpeedAndCadence, .cyclingPower, .runningSpeedAndCadence, .indoorBike]
        case .speed, .distance: order = [.indoorBike, .treadmill, .runningSpeedAndCadence, .cyclingSpeedAndCadence, .cyclingPower]
        case .heartRate: order = [.heartRate, .indoorBike, .treadmill]
        case .heartbeatInterval: order = [.heartRate]
        case .temperature: order = []
        }
        return order.firstIndex(of: source)
    }

    /// The samples of `samples` (all from `source`, read at `now`) that are their type's series.
    mutating func keep(_ samples: [QuantitySample], from source: Source, now: Duration) -> [QuantitySample] {
        samples.filter { sample in
            guard let rank = Self.rank(of: source, for: sample.type) else { return false }
            if let claim = claims[sample.type], claim.rank < rank, now - claim.at < Self.hold { return false }
            claims[sample.type] = (rank, now)
            return true
        }
    }
}

/// The heart-rate straps this process reads that give a heart rate now, by bus and address: a
/// fitness machine's heart rate waits while one does, so that a treadmill's hand grips and the
/// strap the runner wears do not make two series. A strap gives one from its first heart rate
/// until it sends one without (no skin contact), or its connection ends.
enum StrapHeartRates {
    private static let giving = Locked<Set<String>>([])

    /// Says whether the strap at `address` on `bus` gives a heart rate now.
    static func set(_ isGiving: Bool, bus: String, address: String) {
        let key = bus + "|" + address
        giving.withLock { giving in
            if isGiving { giving.insert(key) } else { giving.remove(key) }
        }
    }

    /// Whether a strap on `bus` gives a heart rate now.
    static func anyGiving(on bus: String) -> Bool {
        let prefix = bus + "|"
        return giving.withLock { giving in giving.contains { $0.hasPrefix(prefix) } }
    }
}
