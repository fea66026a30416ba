/// A climb of a course: where it starts and ends along the course, and its category.
public struct Climb: Sendable, Hashable, Codable {
    /// A climb's category by its score (length in metres × average grade in percent), with
    /// Strava's bins (support.strava.com, "Climb Categorization": Cat 4 > 8,000, Cat 3 > 16,000,
    /// Cat 2 > 32,000, Cat 1 > 64,000, HC > 80,000), which Garmin's ClimbPro scores the same way.
    public enum Category: String, Sendable, Hashable, Codable, Comparable {
        /// A climb that counts (``ClimbRule``) but scores 8,000 or less.
        case uncategorized
        case fourth = "4"
        case third = "3"
        case second = "2"
        case first = "1"
        case hors = "HC"

        /// The category of a climb scoring `score`.
        public init(score: Double) {
            self = switch score {
            case ..<8_000.000_001: .uncategorized
            case ..<16_000.000_001: .fourth
            case ..<32_000.000_001: .third
            case ..<64_000.000_001: .second
            case ..<80_000.000_001: .first
            default: .hors
            }
        }

        private var rank: Int { [.uncategorized, .fourth, .third, .second, .first, .hors].firstIndex(of: self) ?? 0 }
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    /// Metres along the course where it starts (its foot) and ends (its top).
    public var start: Double
    public var end: Double
    /// Smoothed elevations in metres at its foot and its top.
    public var startElevation: Double
    public var endElevation: Double

    public init(start: Double, end: Double, startElevation: Double, endElevation: Double) {
        self.start = start
        self.end = end
        self.startElevation = startElevation
        self.endElevation = endElevation
    }

    /// Metres along the course.
    public var length: Double { end - start }
    /// Metres climbed, foot to top.
    public var ascent: Double { endElevation - startElevation }
    /// The average grade, a fraction (0.05 for 5 %).
    public var grade: Double { length > 0 ? ascent / length : 0 }
    /// Length in metres × grade in percent: the score Strava and Garmin categorize by.
    public var score: Double { length * grade * 100 }
    public var category: Category { Category(score: score) }
}

/// How climbs are found along a course's smoothed elevation (the workout's 5 m hysteresis).
///
/// From a foot (the lowest point since the last climb), the climb goes on while the course rises;
/// it ends at its highest point once the course has fallen `descentTolerance` metres below it, or
/// at the finish. It counts when it is at least `minimumLength` long, at least `minimumGrade`
/// steep on average and scores at least `minimumScore` (Garmin's ClimbPro: 500 m, 3 % and 1,500,
/// "Understanding ClimbPro on the Edge", 2020). The foot is the last lowest raw elevation among
/// the positions at the foot's smoothed elevation, and the top the first highest at the top's, so
/// a flat before a climb does not move its foot.
public struct ClimbRule: Sendable, Hashable {
    public var minimumLength: Double
    public var minimumGrade: Double
    public var minimumScore: Double
    /// Metres of descent from the top that end a climb (a dip less than this is part of it).
    public var descentTolerance: Double

    public init(minimumLength: Double = 500, minimumGrade: Double = 0.03, minimumScore: Double = 1_500, descentTolerance: Double = 10) {
        self.minimumLength = minimumLength
        self.minimumGrade = minimumGrade
        self.minimumScore = minimumScore
        self.descentTolerance = descentTolerance
    }

    /// The climbs of the profile: `distances` along the course, the smoothed `elevations` at them,
    /// and the `raw` elevations they were smoothed from (empty when not known).
    public func climbs(distances: [Double], elevations: [Double], raw: [Double?] = []) -> [Climb] {
        guard distances.count == elevations.count, !distances.isEmpty else { return [] }
        let raw = raw.count == elevations.count ? raw : []
        var climbs: [Climb] = []
        var foot = 0
        var top: Int?
        func close() {
            guard var top else { return }
            var foot = foot
            if !raw.isEmpty {
                // The foot: the last lowest raw elevation of the positions at the foot's smoothed
                // elevation; the top: the first highest of those at the top's.
                var index = foot
                while index > 0, elevations[index - 1] == elevations[foot] {
                    index -= 1
                    if let low = raw[index], let current = raw[foot], low < current { foot = index }
                }
                index = top
                while index + 1 < elevations.count, elevations[index + 1] == elevations[top] {
                    index += 1
                    if let high = raw[index], let current = raw[top], high > current { top = index }
                }
            }
            let climb = Climb(start: distances[foot], end: distances[top], startElevation: elevations[foot], endElevation: elevations[top])
            if climb.length >= minimumLength, climb.grade >= minimumGrade, climb.score >= minimumScore { climbs.append(climb) }
        }
        for index in 1..<distances.count {
            let elevation = elevations[index]
            if let highest = top {
                if elevation > elevations[highest] {
                    top = index
                } else if elevations[highest] - elevation >= descentTolerance {
                    close()
                    top = nil
                    foot = index
                }
            } else if elevation <= elevations[foot] {
                foot = index
            } else {
                top = index
            }
        }
        close()
        return climbs
    }
}
