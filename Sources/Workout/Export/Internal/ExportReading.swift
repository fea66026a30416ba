import Foundation
import GRDB

/// The values of the samples taken at one instant, one per type.
struct InstantValues: Sendable {
    var heartRate: Double?
    var cadence: Double?
    var power: Double?
    var temperature: Double?
    var speed: Double?
    var heartbeatInterval: Double?
    var distance: Double?

    subscript(type: QuantityType) -> Double? {
        get {
            switch type {
            case .heartRate: heartRate
            case .cadence: cadence
            case .power: power
            case .temperature: temperature
            case .speed: speed
            case .heartbeatInterval: heartbeatInterval
            case .distance: distance
            }
        }
        set {
            switch type {
            case .heartRate: heartRate = newValue
            case .cadence: cadence = newValue
            case .power: power = newValue
            case .temperature: temperature = newValue
            case .speed: speed = newValue
            case .heartbeatInterval: heartbeatInterval = newValue
            case .distance: distance = newValue
            }
        }
    }
}

/// One moment of a workout, as the FIT and TCX exports write it (a `record`, a `Trackpoint`): a
/// route point with the samples taken nearest its time, or a second's samples where there is no
/// point (``RecordMoments``).
struct ExportInstant: Sendable {
    /// Seconds since 1970.
    var time: Double
    var point: RoutePoint?
    var values = InstantValues()
}

/// The route points of a workout that an export writes, in order, read in batches: all of them,
/// but for a recorded session's points less accurate than its limit (they counted for nothing).
struct ExportRoute {
    private var route: RouteBatches.Iterator
    private var points: [RoutePoint] = []
    private var index = 0
    private var done = false
    private let options: SessionTimeline.Options

    init(store: WorkoutStore, workoutID: UUID, options: SessionTimeline.Options) {
        route = store.routePoints(of: workoutID, batchSize: SampleCursor.batchSize).makeAsyncIterator()
        self.options = options
    }

    /// A point's time, seconds since 1970: its fix's, else when it was received.
    static func time(of point: RoutePoint) -> Double {
        (point.location.time ?? point.location.receivedAt).timeIntervalSince1970
    }

    /// The next point, without taking it; `nil` after the last.
    mutating func head() async throws(WorkoutStoreError) -> RoutePoint? {
        while index >= points.count, !done {
            let batch = try await route.next() ?? []
            points = options.maximumHorizontalAccuracy == nil ? batch : batch.filter { options.isAccurate($0.location.horizontalAccuracy) }
            index = 0
            done = batch.isEmpty
        }
        return index < points.count ? points[index] : nil
    }

    /// The next point if it is read already: ``head()`` without a suspension point, which a
    /// million points' awaits made a tenth of the FIT export's time.
    var buffered: RoutePoint? { index < points.count ? points[index] : nil }

    /// Takes the point ``head()`` gave.
    mutating func advance() {
        index += 1
    }
}

/// The samples of one type of a workout, in order of start (then end), read a batch at a time
/// after the last read.
struct SampleCursor {
    typealias Sample = (start: Double, end: Double, value: Double)

    /// How many samples (or route points, for ``ExportRoute``) a read takes.
    static let batchSize = 4_096

    let type: QuantityType
    private let store: WorkoutStore
    private let workoutID: UUID
    private var buffer: [Sample] = []
    private var index = 0
    private var done = false

    init(store: WorkoutStore, workoutID: UUID, type: QuantityType) {
        self.store = store
        self.workoutID = workoutID
        self.type = type
    }

    /// The next sample, without taking it; `nil` after the last.
    mutating func head() async throws(WorkoutStoreError) -> Sample? {
        if index >= buffer.count, !done { try await refill() }
        return index < buffer.count ? buffer[index] : nil
    }

    /// Takes every sample read and not yet taken (after ``head()`` gave one): a batch at once.
    mutating func takeBuffered() -> ArraySlice<Sample> {
        defer { index = buffer.count }
        return buffer[min(index, buffer.count)...]
    }

    /// Takes the sample ``head()`` gave.
    mutating func advance() {
        index += 1
    }

    private mutating func refill() async throws(WorkoutStoreError) {
        let after = buffer.last.map { ($0.start, $0.end) } ?? (-Double.infinity, -Double.infinity)
        let (workoutID, type, limit) = (workoutID, type, Self.batchSize)
        let batch = try await store.read { db -> [Sample] in
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return [] }
            let statement = try db.cachedStatement(sql: """
                SELECT start_time, end_time, value FROM quantity_sample
                WHERE workout = ? AND type = ? AND (start_time, end_time) > (?, ?)
                ORDER BY start_time, end_time LIMIT ?
                """)
            let rows = try Row.fetchCursor(statement, arguments: [stored.key, type.rawValue, after.0, after.1, limit])
            var samples: [Sample] = []
            samples.reserveCapacity(limit)
            while let row = try rows.next() {
                samples.append((row[0] as Double, row[1] as Double, row[2] as Double))
            }
            return samples
        }
        buffer = batch
        index = 0
        done = batch.count < limit
    }
}

extension WorkoutStore {
    /// The sample types a workout has.
    func sampleTypes(of workoutID: UUID) async throws(WorkoutStoreError) -> [QuantityType] {
        let counts = try await sampleCounts(of: workoutID)
        return QuantityType.allCases.filter { counts[$0] != nil }
    }

    /// How many samples of each type a workout has (types it has none of are absent).
    func sampleCounts(of workoutID: UUID) async throws(WorkoutStoreError) -> [QuantityType: Int] {
        try await read { db in
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return [:] }
            var counts: [QuantityType: Int] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT type, count(*) FROM quantity_sample WHERE workout = ? GROUP BY type", arguments: [stored.key])
            while let row = try rows.next() {
                if let type = QuantityType(rawValue: row[0]) { counts[type] = row[1] }
            }
            return counts
        }
    }
}
