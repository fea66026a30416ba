/// How an importer (``GPXImporter``, ``FITImporter``, ``TCXImporter``) imports: the same options
/// for every format, so that one command line or one setting serves them all.
public struct WorkoutImportOptions: Sendable, Hashable {
    /// The activity of every imported workout; `nil`: from the file (a GPX track's `<type>`, a FIT
    /// file's sport, a TCX activity's `Sport`).
    public var activity: WorkoutActivityType?
    /// Stop at the first thing the import would otherwise skip, instead of skipping it and saying
    /// so in the report:
    /// - GPX: the first invalid value (`GPXReadOptions/strict`).
    /// - FIT: a bad CRC, or a file cut off or damaged partway, instead of importing what it holds
    ///   with a warning (`FITReadOptions.strict`); and the first record (or value) the import
    ///   would skip.
    /// - TCX: the first invalid value (`TCXReadOptions.strict`), and the first point (or value)
    ///   the import would skip (earlier than the point before, more than a day after it, the odd
    ///   one out, an impossible value).
    public var strict: Bool
    /// The ``WorkoutMetadata/sourceApp`` of imported workouts.
    public var sourceApp: String
    /// Route points per batch handed from the reader to the store.
    public var batchSize: Int

    /// Options; lenient unless `strict`.
    public init(activity: WorkoutActivityType? = nil, strict: Bool = false, sourceApp: String = "workout import", batchSize: Int = 4_096) {
        self.activity = activity
        self.strict = strict
        self.sourceApp = sourceApp
        self.batchSize = batchSize
    }
}
