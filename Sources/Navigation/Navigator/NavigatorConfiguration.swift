/// The thresholds a ``Navigator`` decides by. The defaults suit a bike; ``foot`` and ``boat``
/// suit a runner or walker and a boat.
public struct NavigatorConfiguration: Sendable, Hashable {
    /// Metres from the course, less the fix's accuracy, beyond which a fix is off course (a bike:
    /// 50 m; on foot 25 m; a boat 100 m).
    public var offCourseDistance: Double
    /// Metres from the course, less the fix's accuracy, within which a fix is on course again: less
    /// than ``offCourseDistance``, so that a rider along the edge is not told off and on in turn.
    public var onCourseDistance: Double
    /// Consecutive off-course fixes before the rider is told (3).
    public var offCourseFixes: Int
    /// Consecutive on-course fixes before the rider is told they are back (2).
    public var onCourseFixes: Int
    /// Fixes whose horizontal accuracy is worse than this many metres decide nothing (50 m); a fix
    /// with no accuracy is taken at ``assumedAccuracy``.
    public var maximumAccuracy: Double
    /// The accuracy in metres taken for a fix that gives none (15 m).
    public var assumedAccuracy: Double
    /// Metres before a cue at which it is announced, largest first (300 m and 100 m).
    public var cueAnnouncements: [Double]
    /// Metres before a cue within which it is "now" (20 m); a cue passed between two fixes is
    /// "now" at the first fix past it.
    public var cueNow: Double
    /// Metres before the finish within which the course is finished (25 m).
    public var finishDistance: Double
    /// Metres around a fix within which the course's passes are its candidates (250 m).
    public var searchRadius: Double
    /// Metres of movement against the course, over ``wrongWayFixes`` consecutive fixes heading
    /// against it, before the rider is told they are going the wrong way (20 m).
    public var wrongWayDistance: Double
    /// Consecutive fixes heading against the course for the wrong way (3).
    public var wrongWayFixes: Int
    /// Metres per second below which a fix's heading is not trusted (1 m/s).
    public var movingSpeed: Double

    public init(
        offCourseDistance: Double = 50, onCourseDistance: Double? = nil, offCourseFixes: Int = 3, onCourseFixes: Int = 2,
        maximumAccuracy: Double = 50, assumedAccuracy: Double = 15, cueAnnouncements: [Double] = [300, 100], cueNow: Double = 20,
        finishDistance: Double = 25, searchRadius: Double? = nil, wrongWayDistance: Double = 20, wrongWayFixes: Int = 3,
        movingSpeed: Double = 1
    ) {
        self.offCourseDistance = offCourseDistance
        self.onCourseDistance = onCourseDistance ?? offCourseDistance * 0.6
        self.offCourseFixes = max(1, offCourseFixes)
        self.onCourseFixes = max(1, onCourseFixes)
        self.maximumAccuracy = maximumAccuracy
        self.assumedAccuracy = assumedAccuracy
        self.cueAnnouncements = cueAnnouncements.sorted(by: >)
        self.cueNow = cueNow
        self.finishDistance = finishDistance
        self.searchRadius = searchRadius ?? max(250, 3 * offCourseDistance + maximumAccuracy)
        self.wrongWayDistance = wrongWayDistance
        self.wrongWayFixes = max(1, wrongWayFixes)
        self.movingSpeed = movingSpeed
    }

    /// A bike's: off course beyond 50 m, cues at 300 m, 100 m and now.
    public static let bike = NavigatorConfiguration()
    /// On foot: off course beyond 25 m, cues at 100 m, 30 m and now (10 m).
    public static let foot = NavigatorConfiguration(offCourseDistance: 25, cueAnnouncements: [100, 30], cueNow: 10, finishDistance: 15)
    /// A boat's: off course beyond 100 m, cues (waypoints) at 1 km, 200 m and now (50 m).
    public static let boat = NavigatorConfiguration(offCourseDistance: 100, cueAnnouncements: [1_000, 200], cueNow: 50, finishDistance: 50)
}
