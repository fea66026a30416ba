/// The global message numbers of the FIT profile that this package reads or writes (the profile
/// defines many more; a message of any other number is delivered as it is, and an importer skips it).
public enum FITMessageNumber {
    /// `file_id`: what the file is (``FITFileType``) and which device made it. First in every file.
    public static let fileID: UInt16 = 0
    /// `sport`: the sport and its name for the activity.
    public static let sport: UInt16 = 12
    /// `session`: one sport's totals (a multisport activity has several).
    public static let session: UInt16 = 18
    /// `lap`: one lap's totals.
    public static let lap: UInt16 = 19
    /// `record`: a sample in time: position, altitude, speed, heart rate, cadence, power...
    public static let record: UInt16 = 20
    /// `event`: timer start and stop (pauses), laps, markers, gear changes...
    public static let event: UInt16 = 21
    /// `device_info`: a device that took part (the recording unit, a heart-rate strap...).
    public static let deviceInfo: UInt16 = 23
    /// `course`: a course file's name, sport and capabilities.
    public static let course: UInt16 = 31
    /// `course_point`: a point of a course (a turn, water, a summit) at its distance along it.
    public static let coursePoint: UInt16 = 32
    /// `activity`: the activity's summary, one per file, last.
    public static let activity: UInt16 = 34
    /// `file_creator`: the software and hardware versions of the writer.
    public static let fileCreator: UInt16 = 49
    /// `field_description`: describes a developer field.
    public static let fieldDescription: UInt16 = 206
    /// `developer_data_id`: identifies the app behind a developer data index.
    public static let developerDataID: UInt16 = 207
}

/// Field numbers shared by every message.
public enum FITField {
    /// `timestamp` (uint32, FIT seconds), in any message that has one.
    public static let timestamp: UInt8 = 253
    /// `message_index` (uint16), numbering laps, sessions and other repeated messages.
    public static let messageIndex: UInt8 = 254
}

/// Times in FIT files: `date_time` values are whole seconds since 1989-12-31T00:00:00Z (UTC);
/// values below 0x10000000 are not dates but seconds since the device powered up.
public enum FITTime {
    /// 1989-12-31T00:00:00Z in seconds since 1970.
    public static let epoch: Double = 631_065_600
    /// The smallest `date_time` value that is a date.
    public static let minimumDate: UInt32 = 0x1000_0000

    /// The time `value` stands for, in seconds since 1970; `nil` for a value below ``minimumDate``
    /// (a time since power-up).
    public static func seconds(since1970 value: UInt32) -> Double? {
        value >= minimumDate ? Double(value) + epoch : nil
    }

    /// The `date_time` value of a time in seconds since 1970, rounded down to the second; `nil`
    /// outside what a `date_time` can hold.
    public static func value(fromSeconds since1970: Double) -> UInt32? {
        let value = (since1970 - epoch).rounded(.down)
        guard value >= Double(minimumDate), value < Double(UInt32.max) else { return nil }
        return UInt32(value)
    }
}

/// Positions in FIT files are semicircles: 2³¹ semicircles make 180 degrees.
public enum FITSemicircles {
    /// Degrees per semicircle: 180 / 2³¹ (exactly representable, so conversions are exact).
    public static let degreesPerSemicircle = 180.0 / 2_147_483_648.0

    /// Degrees from semicircles.
    public static func degrees(_ semicircles: Int64) -> Double {
        Double(semicircles) * degreesPerSemicircle
    }

    /// The nearest semicircles to `degrees` (within ±180°).
    public static func semicircles(_ degrees: Double) -> Int32 {
        let value = (degrees / degreesPerSemicircle).rounded()
        return Int32(max(-2_147_483_647, min(2_147_483_646, value)))
    }
}

/// The `file` types of `file_id` (field 0) this package names; any other is reported by number.
public enum FITFileType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Device capabilities.
    case device = 1
    /// Device settings.
    case settings = 2
    /// Sport settings.
    case sport = 3
    /// A recorded activity: what an importer takes.
    case activity = 4
    /// A planned workout (steps and targets), not a recording.
    case workout = 5
    /// A course to follow: a planned route, not a recording.
    case course = 6
    /// Scheduled workouts.
    case schedules = 7
    /// Weight-scale readings.
    case weight = 9
    /// Lifetime totals.
    case totals = 10
    /// Goals.
    case goals = 11
    /// Blood-pressure readings.
    case bloodPressure = 14
    /// All-day monitoring (steps, heart rate), first format.
    case monitoringA = 15
    /// An activity summary without records.
    case activitySummary = 20
    /// Daily monitoring.
    case monitoringDaily = 28
    /// All-day monitoring, second format.
    case monitoringB = 32
    /// A segment.
    case segment = 34
    /// A list of segments.
    case segmentList = 35

    /// In words, for messages: "activity", "settings", "monitoring".
    public var description: String {
        switch self {
        case .device: "device"
        case .settings: "settings"
        case .sport: "sport settings"
        case .activity: "activity"
        case .workout: "workout plan"
        case .course: "course"
        case .schedules: "schedule"
        case .weight: "weight scale"
        case .totals: "totals"
        case .goals: "goals"
        case .bloodPressure: "blood pressure"
        case .monitoringA, .monitoringB, .monitoringDaily: "monitoring"
        case .activitySummary: "activity summary"
        case .segment: "segment"
        case .segmentList: "segment list"
        }
    }
}
