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

    /// The usual file name extension: `gpx`, `geojson`.
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
    /// Heart rate and cadence samples written on the point they belong to.
    public var samplesWritten: Int
    /// Samples not written: heart rate and cadence samples whose start matches no point's time
    /// (within half a millisecond), and samples of the types the format has no place for (power,
    /// temperature, speed).
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
