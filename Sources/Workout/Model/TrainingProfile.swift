import Foundation

/// What the training figures of a workout are measured against: the athlete's functional
/// threshold power (FTP), maximum heart rate, and the zones of each.
///
/// A session keeps it in its ``WorkoutSession/Configuration/trainingProfile``, and the saved
/// workout in its metadata under the keys `ftp_w` (watts), `max_heart_rate_bpm`, `power_zones` and
/// `heart_rate_zones` (``ZoneBounds/text``), so that ``WorkoutStore/trainingFigures(of:profile:)``
/// finds it again. Without an FTP there is no intensity factor nor training stress score, and no
/// power zones unless they are given in watts; without a maximum heart rate, no heart-rate zones
/// unless they are given in bpm.
///
/// ```swift
/// let profile = TrainingProfile(functionalThresholdPower: 250, maximumHeartRate: 185)
/// // Coggan's seven power zones (55 %, 75 %, 90 %, 105 %, 120 %, 150 % of 250 W), five heart-rate
/// // zones (60 %, 70 %, 80 %, 90 % of 185 bpm).
/// ```
public struct TrainingProfile: Sendable, Hashable, Codable {
    /// The functional threshold power, watts.
    public var functionalThresholdPower: Double?
    /// The highest heart rate the athlete reaches, bpm.
    public var maximumHeartRate: Double?
    /// The power zones: fractions of the FTP (Coggan's seven, ``ZoneBounds/cogganPower``, unless
    /// given), or watts.
    public var powerZones: ZoneBounds
    /// The heart-rate zones: fractions of the maximum heart rate (five, ``ZoneBounds/heartRate``,
    /// unless given), or bpm.
    public var heartRateZones: ZoneBounds

    /// A profile; pass what is known.
    public init(
        functionalThresholdPower: Double? = nil, maximumHeartRate: Double? = nil,
        powerZones: ZoneBounds = .cogganPower, heartRateZones: ZoneBounds = .heartRate
    ) {
        self.functionalThresholdPower = functionalThresholdPower
        self.maximumHeartRate = maximumHeartRate
        self.powerZones = powerZones
        self.heartRateZones = heartRateZones
    }

    private enum CodingKeys: String, CodingKey {
        case functionalThresholdPower, maximumHeartRate, powerZones, heartRateZones
    }

    /// Reads a profile a store kept: what it lacks takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            functionalThresholdPower: try container.decodeIfPresent(Double.self, forKey: .functionalThresholdPower),
            maximumHeartRate: try container.decodeIfPresent(Double.self, forKey: .maximumHeartRate),
            powerZones: try container.decodeIfPresent(ZoneBounds.self, forKey: .powerZones) ?? .cogganPower,
            heartRateZones: try container.decodeIfPresent(ZoneBounds.self, forKey: .heartRateZones) ?? .heartRate)
    }

    /// Throws ``TrainingProfileError`` naming the first value that cannot be used: an FTP or a
    /// maximum heart rate that is not a positive number, zones whose bounds do not rise.
    public func validate() throws(TrainingProfileError) {
        if let ftp = functionalThresholdPower, !(ftp > 0 && ftp.isFinite) { throw .notPositive(field: "the FTP", value: ftp) }
        if let maximum = maximumHeartRate, !(maximum > 0 && maximum.isFinite) {
            throw .notPositive(field: "the maximum heart rate", value: maximum)
        }
        try powerZones.validate(name: "the power zones")
        try heartRateZones.validate(name: "the heart-rate zones")
    }

    /// The upper bounds of the power zones but the last, watts; `nil` when they cannot be known
    /// (fractions without an FTP) or are not valid.
    public var powerZoneBounds: [Double]? {
        powerZones.bounds(of: usable(functionalThresholdPower))
    }

    /// The upper bounds of the heart-rate zones but the last, bpm; `nil` when they cannot be known.
    public var heartRateZoneBounds: [Double]? {
        heartRateZones.bounds(of: usable(maximumHeartRate))
    }

    /// The FTP when it is a positive number.
    var usableFTP: Double? { usable(functionalThresholdPower) }

    private func usable(_ value: Double?) -> Double? {
        value.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    // MARK: - Metadata

    /// The metadata keys of a profile: `ftp_w`, `max_heart_rate_bpm`, `power_zones`, `heart_rate_zones`.
    public static let metadataKeys = ["ftp_w", "max_heart_rate_bpm", "power_zones", "heart_rate_zones"]

    /// The profile `metadata` holds, or `nil` when it holds none. A value that cannot be read is
    /// left out, as if not given.
    public init?(_ metadata: WorkoutMetadata) {
        let values = metadata.values
        guard Self.metadataKeys.contains(where: { values[$0] != nil }) else { return nil }
        self.init(
            functionalThresholdPower: values["ftp_w"].flatMap(Double.init),
            maximumHeartRate: values["max_heart_rate_bpm"].flatMap(Double.init),
            powerZones: values["power_zones"].flatMap(ZoneBounds.init(text:)) ?? .cogganPower,
            heartRateZones: values["heart_rate_zones"].flatMap(ZoneBounds.init(text:)) ?? .heartRate)
    }

    /// The metadata values that hold this profile (zones only when they are not the defaults).
    public var metadataValues: [String: String] {
        var values: [String: String] = [:]
        values["ftp_w"] = functionalThresholdPower.map(Self.number)
        values["max_heart_rate_bpm"] = maximumHeartRate.map(Self.number)
        if powerZones != .cogganPower { values["power_zones"] = powerZones.text }
        if heartRateZones != .heartRate { values["heart_rate_zones"] = heartRateZones.text }
        return values
    }

    /// The profile with what `other` knows put over what this one does: a command's `--ftp` over
    /// the workout's own.
    public func overridden(by other: TrainingProfile) -> TrainingProfile {
        TrainingProfile(
            functionalThresholdPower: other.functionalThresholdPower ?? functionalThresholdPower,
            maximumHeartRate: other.maximumHeartRate ?? maximumHeartRate,
            powerZones: other.powerZones != .cogganPower ? other.powerZones : powerZones,
            heartRateZones: other.heartRateZones != .heartRate ? other.heartRateZones : heartRateZones)
    }

    static func number(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Where zones divide: the upper bound of each zone but the last (the last is open), rising. A
/// value on a bound belongs to the zone below it, as Coggan's table counts 75 % of FTP in zone 2.
public enum ZoneBounds: Sendable, Hashable, Codable {
    /// Fractions of a reference: the FTP for power, the maximum heart rate for heart rate.
    case fractions([Double])
    /// Values in the unit of the samples: watts, bpm.
    case values([Double])

    /// Coggan's seven power zones: active recovery up to 55 % of FTP, endurance to 75 %, tempo to
    /// 90 %, threshold to 105 %, VO2max to 120 %, anaerobic to 150 %, neuromuscular above.
    public static let cogganPower = ZoneBounds.fractions([0.55, 0.75, 0.90, 1.05, 1.20, 1.50])
    /// Five heart-rate zones as fractions of the maximum heart rate: up to 60 %, 70 %, 80 %, 90 %,
    /// and above (the common five-zone model of head units; zone 1 takes everything below 60 %).
    public static let heartRate = ZoneBounds.fractions([0.6, 0.7, 0.8, 0.9])

    /// The bounds as text: percentages (`55%,75%,90%`) or values (`150,200,250`).
    public var text: String {
        switch self {
        case let .fractions(fractions): fractions.map { TrainingProfile.number(($0 * 100 * 1e9).rounded() / 1e9) + "%" }.joined(separator: ",")
        case let .values(values): values.map(TrainingProfile.number).joined(separator: ",")
        }
    }

    /// Reads ``text``; `nil` when it is not a list of rising positive numbers, all percentages or none.
    public init?(text: String) {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let percent = parts.allSatisfy { $0.hasSuffix("%") }
        guard !parts.isEmpty, percent || parts.allSatisfy({ !$0.hasSuffix("%") }) else { return nil }
        let numbers = parts.compactMap { Double(percent ? String($0.dropLast()) : $0) }
        guard numbers.count == parts.count else { return nil }
        self = percent ? .fractions(numbers.map { $0 / 100 }) : .values(numbers)
        guard (try? validate(name: "")) != nil else { return nil }   // the error's words are not needed: nil says it
    }

    /// The bounds in the samples' unit, given the reference; `nil` for fractions without one, or
    /// bounds that do not rise.
    func bounds(of reference: Double?) -> [Double]? {
        guard (try? validate(name: "")) != nil else { return nil }   // invalid bounds give no zones, as documented
        switch self {
        case let .fractions(fractions): return reference.map { reference in fractions.map { $0 * reference } }
        case let .values(values): return values
        }
    }

    func validate(name: String) throws(TrainingProfileError) {
        let bounds = switch self {
        case let .fractions(values), let .values(values): values
        }
        guard !bounds.isEmpty else { throw .zones(name: name, text: text, reason: "there is no bound") }
        guard bounds.allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw .zones(name: name, text: text, reason: "a bound is not a positive number")
        }
        guard zip(bounds, bounds.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw .zones(name: name, text: text, reason: "the bounds do not rise")
        }
    }
}

/// A ``TrainingProfile`` value that cannot be used.
public enum TrainingProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An FTP or maximum heart rate that is not a positive number.
    case notPositive(field: String, value: Double)
    /// Zones whose bounds cannot be used, and why.
    case zones(name: String, text: String, reason: String)

    /// What is wrong, as a sentence.
    public var description: String {
        switch self {
        case let .notPositive(field, value): "\(field) must be a positive number, not \(value)"
        case let .zones(name, text, reason): "\(name) \"\(text)\" cannot be used: \(reason) (give rising bounds, such as 55%,75%,90% or 150,200,250)"
        }
    }
}
