import Foundation

extension WorkoutSession {
    /// Where a session stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Made, not started.
        case notStarted = "not started"
        /// Recording.
        case running
        /// Paused by the user: fixes are kept as route points but nothing counts.
        case paused
        /// ``WorkoutSession/end()`` is saving it.
        case ending
        /// ``WorkoutSession/end()`` could not save it (the store kept failing): its sources are
        /// stopped and everything it recorded is kept, written or held. Call `end()` again, or
        /// ``WorkoutSession/discard()``.
        case stopped
        /// Saved.
        case ended
        /// Thrown away.
        case discarded
    }

    /// What was asked of a session, as an invalid transition names it.
    public enum Action: String, Sendable, Hashable, Codable, CustomStringConvertible {
        case start, pause, resume, lap, mark, end, discard

        /// The action's name: `pause`.
        public var description: String { rawValue }
    }

    /// Where a workout is done, as HealthKit's `HKWorkoutSessionLocationType`.
    public enum LocationType: String, Sendable, Hashable, Codable, CaseIterable {
        /// Outdoors: the time line begins at the first fix, and the route is recorded.
        case outdoor
        /// Indoors (a trainer, a treadmill): no fixes are taken (a location source given is not
        /// started); the time line begins at `start()` on the session's clock, the sensors'
        /// samples make the workout, and the distance is the sensor's. Saved as
        /// ``WorkoutMetadata/isIndoor`` `true`.
        case indoor
        /// Not said: recorded as outdoors, saved with ``WorkoutMetadata/isIndoor`` unset.
        case unknown
    }

    /// How a wheel sensor's circumference is known.
    public enum WheelCircumference: Sendable, Hashable, Codable {
        /// Assumed (the sensors measure with `assumed` metres, 2.105 for a 700x25c tyre by
        /// default): the session calibrates it against the stretches of good GPS, and counts the
        /// sensor's distance with the calibrated one once 200 m of them are compared.
        case calibrated(assumed: Double)
        /// Given by the user (the sensors measure with it): kept; the calibration is only reported.
        case given(Double)

        /// The circumference the sensors measure with, metres.
        public var metres: Double {
            switch self {
            case let .calibrated(assumed): assumed
            case let .given(metres): metres
            }
        }

        /// Whether the session corrects the sensor's distance by its calibration.
        public var calibrates: Bool {
            if case .calibrated = self { true } else { false }
        }
    }

    /// How a session records: the activity, where it is done and where its distance comes from,
    /// auto-pause, auto-laps, the rules its fixes are held to, and how it waits for a failing
    /// store. Kept with the session in the store, so a session resumed after a crash records as it did.
    public struct Configuration: Sendable, Hashable, Codable {
        /// What is done.
        public var activityType: WorkoutActivityType
        /// Indoors, outdoors, or not said (recorded as outdoors). ``LocationType/unknown`` by default.
        public var locationType: LocationType
        /// Where the distance comes from when a sensor measures it too (a wheel, a foot pod):
        /// ``DistanceSource/automatic`` by default, the fixes where they are usable and the
        /// sensor across the stretches where they are not. Indoors it is always the sensor.
        public var distanceSource: DistanceSource
        /// A wheel sensor's circumference: assumed and calibrated against GPS (the default,
        /// 2.105 m), or given.
        public var wheelCircumference: WheelCircumference
        /// Auto-pause, or `nil` for none.
        public var autoPause: AutoPause?
        /// A lap every this many metres covered while active, or `nil`.
        public var autoLapDistance: Double?
        /// A lap every this much active time (pauses left out), or `nil`. With both, a lap ends at
        /// whichever comes first, and both count again from there. Manual laps can always be added.
        public var autoLapTime: Duration?
        /// The saved workout's metadata. It holds the ``sampleAveraging`` rule and the
        /// ``trainingProfile`` (their keys are set again whenever either, or it, is set).
        public var metadata: WorkoutMetadata {
            didSet { keepFiguresMetadata() }
        }
        /// How fast the activity can go and how inaccurate a fix may be and count (the
        /// activity's ``FixRules/defaults(for:)`` unless given).
        public var fixRules: FixRules
        /// How long ``WorkoutSession/end()`` waits for a failing store (locked by another
        /// process, a full disk) before it gives up and says how the session can still be saved.
        /// 60 s by default.
        public var endTimeout: Duration
        /// The most route points the session holds in memory while the store fails (with four
        /// times as many samples). Past it, new fixes and samples are dropped
        /// (``InputIssue/backlogFull``) until the store takes what is held. 100,000 by default:
        /// over 27 hours at one fix a second, about 30 MB.
        public var maximumHeldPoints: Int
        /// Whether the samples' means count zeros (``SampleAveraging``: one rule for every type;
        /// ``SampleAveraging/includingZeros`` by default). Kept in the saved workout's metadata
        /// (`sample_averaging`), so that the store's figures follow it.
        public var sampleAveraging: SampleAveraging {
            didSet { keepFiguresMetadata() }
        }
        /// The athlete's FTP, maximum heart rate and zones, that the training figures are measured
        /// against (``TrainingFigures``), or `nil`. Kept in the saved workout's metadata (`ftp_w`,
        /// `max_heart_rate_bpm`, `power_zones`, `heart_rate_zones`).
        public var trainingProfile: TrainingProfile? {
            didSet { keepFiguresMetadata() }
        }

        /// A configuration; only the activity is needed.
        public init(
            activityType: WorkoutActivityType, locationType: LocationType = .unknown, distanceSource: DistanceSource = .automatic,
            wheelCircumference: WheelCircumference = .calibrated(assumed: 2.105), autoPause: AutoPause? = nil,
            autoLapDistance: Double? = nil, autoLapTime: Duration? = nil, metadata: WorkoutMetadata = WorkoutMetadata(),
            fixRules: FixRules? = nil, endTimeout: Duration = .seconds(60), maximumHeldPoints: Int = 100_000,
            sampleAveraging: SampleAveraging = .default, trainingProfile: TrainingProfile? = nil
        ) {
            self.activityType = activityType
            self.locationType = locationType
            self.distanceSource = distanceSource
            self.wheelCircumference = wheelCircumference
            self.autoPause = autoPause
            self.autoLapDistance = autoLapDistance
            self.autoLapTime = autoLapTime
            self.metadata = metadata
            self.fixRules = fixRules ?? .defaults(for: activityType)
            self.endTimeout = endTimeout
            self.maximumHeldPoints = maximumHeldPoints
            self.sampleAveraging = sampleAveraging
            self.trainingProfile = trainingProfile
            keepFiguresMetadata()
        }

        /// Writes the averaging rule and the training profile into ``metadata``: the saved
        /// workout keeps them there.
        private mutating func keepFiguresMetadata() {
            var values = metadata.values
            for key in TrainingProfile.metadataKeys { values[key] = nil }
            values.merge(trainingProfile?.metadataValues ?? [:]) { _, profile in profile }
            values[SampleAveraging.metadataKey] = sampleAveraging == .default ? nil : sampleAveraging.rawValue
            guard values != metadata.values else { return }
            metadata.values = values
        }

        private enum CodingKeys: String, CodingKey {
            case activityType, locationType, distanceSource, wheelCircumference, autoPause, autoLapDistance, autoLapTime, metadata,
                 fixRules, endTimeout, maximumHeldPoints
            case sampleAveraging, trainingProfile
        }

        /// Reads a configuration the store kept: what it lacks (kept by an older version) takes
        /// its default, and what it has that this version does not know is left.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let activityType = try container.decode(WorkoutActivityType.self, forKey: .activityType)
            self.init(
                activityType: activityType,
                locationType: try container.decodeIfPresent(LocationType.self, forKey: .locationType) ?? .unknown,
                distanceSource: try container.decodeIfPresent(DistanceSource.self, forKey: .distanceSource) ?? .automatic,
                wheelCircumference: try container.decodeIfPresent(WheelCircumference.self, forKey: .wheelCircumference)
                    ?? .calibrated(assumed: 2.105),
                autoPause: try container.decodeIfPresent(AutoPause.self, forKey: .autoPause),
                autoLapDistance: try container.decodeIfPresent(Double.self, forKey: .autoLapDistance),
                autoLapTime: try container.decodeIfPresent(Duration.self, forKey: .autoLapTime),
                metadata: try container.decodeIfPresent(WorkoutMetadata.self, forKey: .metadata) ?? WorkoutMetadata(),
                fixRules: try container.decodeIfPresent(FixRules.self, forKey: .fixRules),
                endTimeout: try container.decodeIfPresent(Duration.self, forKey: .endTimeout) ?? .seconds(60),
                maximumHeldPoints: try container.decodeIfPresent(Int.self, forKey: .maximumHeldPoints) ?? 100_000,
                sampleAveraging: try container.decodeIfPresent(SampleAveraging.self, forKey: .sampleAveraging) ?? .default,
                trainingProfile: try container.decodeIfPresent(TrainingProfile.self, forKey: .trainingProfile))
        }
    }
}

extension WorkoutSession.Configuration {
    /// The distance source the session records with: indoors, always the sensor.
    var effectiveDistanceSource: DistanceSource {
        locationType == .indoor ? .sensor : distanceSource
    }

    /// The time line's options while recording.
    var timelineOptions: SessionTimeline.Options {
        var options = SessionTimeline.Options(
            maximumHorizontalAccuracy: fixRules.maximumHorizontalAccuracy, autoLapDistance: autoLapDistance,
            autoLapTime: autoLapTime?.seconds)
        options.distanceSource = effectiveDistanceSource
        options.calibratesSensor = locationType != .indoor && wheelCircumference.calibrates
        options.expectsFixes = locationType != .indoor
        return options
    }
}
