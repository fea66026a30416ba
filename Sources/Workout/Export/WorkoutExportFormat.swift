import Foundation

/// The file formats a stored workout can be exported to.
///
/// ```swift
/// let summary = try await store.export(run.id, format: .gpx, toFileAt: "run.gpx")
/// ```
public enum WorkoutExportFormat: String, Sendable, CaseIterable {
    /// GPX 1.1, with heart rate, cadence, speed and course in Garmin's TrackPointExtension v2:
    /// what Strava, Garmin Connect and most GPS tools read.
    case gpx
    /// GeoJSON (RFC 7946): one `Feature` whose geometry is a `MultiLineString`, with the times and
    /// heart rates of its positions in `coordTimes` and `heartRates`, as togeojson writes them.
    case geojson
    /// A FIT activity file, as watches and bike computers write them: records with every sample
    /// type the workout holds, timer events around its pauses, its laps, a session and an
    /// activity; what Garmin Connect, Strava, intervals.icu and TrainingPeaks take first.
    case fit
    /// Garmin Training Center Database (TCX) v2 with ActivityExtension v2: laps with their totals
    /// and triggers, a track per stretch between pauses, heart rate, cadence, speed and watts.
    case tcx

    /// The usual file name extension: `gpx`, `geojson`, `fit`, `tcx`.
    public var fileExtension: String { rawValue }
}

/// What an export wrote.
///
/// Every sample of the workout is either written or counted in ``samplesNotWritten``:
/// `samplesWritten + samplesNotWritten` is the workout's sample count.
public struct ExportSummary: Sendable, Hashable {
    /// The format written.
    public var format: WorkoutExportFormat
    /// Route points written.
    public var points: Int
    /// Route segments written (GPX `<trkseg>`s, GeoJSON lines).
    public var segments: Int
    /// Samples written: on the point they belong to (GeoJSON: heart rate and cadence), or every
    /// sample the format holds (GPX: on the points, or beside them in our extension; FIT, TCX: the
    /// value of each type a record or track point takes, one a fix and one a second where there is
    /// no fix; the beat-to-beat intervals in FIT's `hrv` messages; a workout without a route's
    /// distances, in the records' cumulative distance).
    public var samplesWritten: Int
    /// Samples not written: for GeoJSON, heart rate and cadence samples whose start matches no
    /// point's time (within half a millisecond), and samples of the types it has no place for
    /// (power, temperature, speed); for GPX, none (a workout without a route is refused); for FIT
    /// and TCX, a second sample of a type in one record's interval (a 4 Hz power meter's other
    /// readings), a wheel's speed beside a fix's own, the values their fields cannot hold (a heart
    /// rate over 254 or 255), a wheel's distances beside a route and, for TCX, temperatures and
    /// beat-to-beat intervals.
    public var samplesNotWritten: Int
    /// Bytes written.
    public var bytes: Int64

    /// A summary.
    public init(
        format: WorkoutExportFormat, points: Int, segments: Int, samplesWritten: Int, samplesNotWritten: Int, bytes: Int64
    ) {
        self.format = format
        self.points = points
        self.segments = segments
        self.samplesWritten = samplesWritten
        self.samplesNotWritten = samplesNotWritten
        self.bytes = bytes
    }
}
