import Foundation

/// The records of a FIT export (and the track points of a TCX export), as a head unit writes them: **one per fix**, and where there is no
/// fix (indoors, in a tunnel, before the first fix) **one per second in which a sample was taken**,
/// each holding every sample type's value at its time. A value is taken as the GPX export takes
/// the values on its points (``PointSampler``): the sample of each type **nearest the record's
/// time within its interval** (halfway to the records either side, at most 5 s), never
/// interpolated. A record of a second without a fix stands at the middle of its second (and is
/// dated at its start, FIT's whole second), so that its interval is that second when the seconds
/// either side have records too.
///
/// A sample no record takes (one of several of its type in a record's interval: a 4 Hz power
/// meter, two heart rates in one second) is not written: FIT's records hold one value a type, and
/// a reader keeps a record's value for the record's time. It is counted (``notWritten``), and
/// handed with the record it lay beside (``samples``), so that the figures of the laps and
/// the session are those of every sample, as the store's are.
///
/// The route is read in batches and the samples a batch of each type at a time, in one pass: the
/// records are found one ahead of the one being filled (its interval ends halfway to the next), and
/// the samples taken are forgotten, so memory stays flat whatever the workout's length.
struct RecordMoments {
    /// A record: its instant (time, point, values), and where its interval ends.
    struct Moment {
        var instant: ExportInstant
        /// Where its interval ends (halfway to the next record, at most 5 s on; infinity for the
        /// last): what it stands for up to, such as the distance a wheel measured by then.
        var through: Double
    }

    /// Where a record stands: its time (the point's, or its second's start), the time its values
    /// are taken nearest to (the point's, or the middle of its second), and its point.
    private struct Place {
        var time: Double
        var center: Double
        var point: RoutePoint?
    }

    private var route: ExportRoute
    private var cursors: [SampleCursor]
    private var samplers: [PointSampler]
    /// For each type, the first sample (counted from its first) that the search for records has not passed.
    private var scanned: [Int]
    /// The second of the last record found: the samples in it have their record.
    private var lastSecond = -Double.infinity
    private var upcoming: Place?
    private var started = false
    private var previousCenter: Double?
    private var extras: [PointSampler.Sample] = []
    /// The samples of the last record's interval (``next()``'s), taken or not, in order of start:
    /// for the figures. Reused from record to record.
    private(set) var samples: [QuantitySample] = []
    /// Samples no record took, by type.
    private(set) var notWritten: [QuantityType: Int] = [:]

    /// The records of `workoutID`: its points (kept as `options`, the workout's time line, keeps
    /// them), and its samples of `types`.
    init(store: WorkoutStore, workoutID: UUID, types: [QuantityType], options: SessionTimeline.Options) {
        route = ExportRoute(store: store, workoutID: workoutID, options: options)
        cursors = types.map { SampleCursor(store: store, workoutID: workoutID, type: $0) }
        samplers = types.map { PointSampler(type: $0, samples: [], onPoints: true) }
        scanned = Array(repeating: 0, count: types.count)
    }

    /// The next record, or `nil` after the last.
    mutating func next() async throws(WorkoutStoreError) -> Moment? {
        if !started {
            started = true
            upcoming = try await find()
        }
        guard let place = upcoming.take() else { return nil }
        upcoming = try await find()
        let isLast = upcoming == nil
        let (from, to) = PointSampler.interval(at: place.center, previous: previousCenter, next: upcoming?.center)
        previousCenter = place.center
        var moment = Moment(instant: ExportInstant(time: place.time, point: place.point), through: isLast ? .infinity : to)
        samples.removeAll(keepingCapacity: true)
        for index in samplers.indices {
            let before = isLast ? Double.infinity : to
            if samplers[index].lastStart.map({ $0 < before }) ?? true { try await load(index, before: before) }
            extras.removeAll(keepingCapacity: true)
            let type = samplers[index].type
            if let taken = samplers[index].take(at: place.center, from: from, to: to, isLast: isLast, extras: &extras) {
                moment.instant.values[type] = taken.value
                samples.append(Self.sample(type, taken))
            }
            if !extras.isEmpty { notWritten[type, default: 0] += extras.count }
            for extra in extras { samples.append(Self.sample(type, extra)) }
            samplers[index].forget(before: scanned[index])
        }
        if samplers.count > 1, zip(samples, samples.dropFirst()).contains(where: { $0.start > $1.start }) { samples.sort { $0.start < $1.start } }
        return moment
    }

    private static func sample(_ type: QuantityType, _ sample: PointSampler.Sample) -> QuantitySample {
        QuantitySample(
            type: type, value: sample.value, start: Date(timeIntervalSince1970: sample.start), end: Date(timeIntervalSince1970: sample.end))
    }

    /// The next record's place: the next point, unless a sample comes before it in an earlier
    /// second, whose record it then is.
    private mutating func find() async throws(WorkoutStoreError) -> Place? {
        var point = route.buffered
        if point == nil { point = try await route.head() }
        let pointTime = point.map(ExportRoute.time) ?? .infinity
        var first = Double.infinity
        for index in samplers.indices {
            while true {
                // Read a batch at a time: a suspension point only where the samples read run out.
                var start = samplers[index].start(ofSample: scanned[index])
                if start == nil { start = try await self.start(index, scanned[index]) }
                guard let start else { break }
                guard start.rounded(.down) <= lastSecond else {
                    first = min(first, start)
                    break
                }
                scanned[index] += 1
            }
        }
        if let point, pointTime <= first || first.rounded(.down) == pointTime.rounded(.down) {
            route.advance()
            lastSecond = pointTime.rounded(.down)
            return Place(time: pointTime, center: pointTime, point: point)
        }
        guard first.isFinite else { return nil }
        lastSecond = first.rounded(.down)
        return Place(time: lastSecond, center: lastSecond + 0.5)
    }

    /// The start of sample `number` of type `index`, read from the store if need be; `nil` past the last.
    private mutating func start(_ index: Int, _ number: Int) async throws(WorkoutStoreError) -> Double? {
        while samplers[index].count <= number {
            guard try await readBatch(index) else { return nil }
        }
        return samplers[index].start(ofSample: number)
    }

    /// Reads the samples of type `index` that start before `time` (all of them, for `.infinity`).
    private mutating func load(_ index: Int, before time: Double) async throws(WorkoutStoreError) {
        while samplers[index].lastStart.map({ $0 < time }) ?? true {
            guard try await readBatch(index) else { return }
        }
    }

    /// Hands type `index`'s next batch of samples to its sampler; `false` after the last.
    private mutating func readBatch(_ index: Int) async throws(WorkoutStoreError) -> Bool {
        guard try await cursors[index].head() != nil else { return false }
        samplers[index].append(contentsOf: cursors[index].takeBuffered())
        return true
    }
}
