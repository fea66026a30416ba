import FIT
import Foundation

/// Records and `hrv` messages, laid out byte by byte (little endian, as the definitions say):
/// the FIT export writes one per moment of a workout, a million for a long one.
extension FITActivityEncoder {
    /// A `record`: the instant's point (position, altitude, speed), `distance` covered so far (the
    /// time line's, with or without a position), and its samples; with `segment`, our field saying it begins that route segment. Returns how many
    /// of its samples its fields cannot hold (a heart rate over 254, a temperature past ±127 °C...),
    /// written as invalid.
    @discardableResult
    mutating func record(_ instant: ExportInstant, at time: UInt32, distance: Double?, segment: Int? = nil) -> Int {
        var lost = 0
        var bytes = scratch
        bytes.removeAll(keepingCapacity: true)
        let location = instant.point?.location
        let values = instant.values
        for field in recordFields {
            switch field.number {
            case 253: Self.put(UInt64(time), size: 4, to: &bytes)
            case 0: Self.put(location.map { Int64(FITSemicircles.semicircles($0.latitude)) }, .sint32, to: &bytes)
            case 1: Self.put(location.map { Int64(FITSemicircles.semicircles($0.longitude)) }, .sint32, to: &bytes)
            case 2: Self.put(Self.scaled(location?.altitude, scale: 5, offset: 500), .uint16, to: &bytes)
            case 78: Self.put(Self.scaled(location?.altitude, scale: 5, offset: 500), .uint32, to: &bytes)
            case 5: Self.put(Self.scaled(distance, scale: 100), .uint32, to: &bytes)
            case 6: Self.put(Self.scaled(location?.speed ?? values.speed, scale: 1000), .uint16, to: &bytes)
            case 73:
                if let speed = location?.speed {
                    Self.put(Self.scaled(speed, scale: 1000), .uint32, to: &bytes)
                } else {
                    Self.put(sample(values.speed, .uint32, scale: 1000, lost: &lost), .uint32, to: &bytes)
                }
            case 3: Self.put(sample(values.heartRate, .uint8, lost: &lost), .uint8, to: &bytes)
            case 4: Self.put(sample(values.cadence.map { Self.cadence($0).whole }, .uint8, lost: &lost), .uint8, to: &bytes)
            case 53: Self.put(values.cadence.map { Int64(Self.cadence($0).fraction) }, .uint8, to: &bytes)
            case 7: Self.put(sample(values.power, .uint16, lost: &lost), .uint16, to: &bytes)
            case 13: Self.put(sample(values.temperature, .sint8, lost: &lost), .sint8, to: &bytes)
            default: Self.put(nil, field.baseType, to: &bytes)
            }
        }
        var local = Local.record
        if let segment {
            Self.put(Int64(segment), .uint16, to: &bytes)
            local = .segmentRecord
        }
        bytes.withUnsafeBytes { writer.write(localType: local.rawValue, content: $0) }
        scratch = bytes
        return lost
    }

    /// An `hrv` message: up to five beat-to-beat intervals (seconds), the first ending at `beat`.
    /// Returns how many it cannot hold (65.535 s or more), written as invalid.
    @discardableResult
    mutating func hrv(_ intervals: [Double], firstBeat beat: Date) -> Int {
        guard let (seconds, milliseconds) = FITWorkoutFields.split(beat) else { return intervals.count }
        var lost = 0
        var bytes = scratch
        bytes.removeAll(keepingCapacity: true)
        for index in 0..<FITWorkoutFields.hrvValues {
            let value = index < intervals.count ? Self.scaled(intervals[index], scale: 1000) : nil
            if index < intervals.count, value.map({ !Self.holds($0, .uint16) }) ?? true { lost += 1 }
            Self.put(value, .uint16, to: &bytes)
        }
        Self.put(UInt64(seconds), size: 4, to: &bytes)
        Self.put(UInt64(milliseconds), size: 2, to: &bytes)
        bytes.withUnsafeBytes { writer.write(localType: Local.hrv.rawValue, content: $0) }
        scratch = bytes
        return lost
    }

    /// A sample's value scaled, or `nil` (counted in `lost`) when its field cannot hold it.
    private func sample(_ value: Double?, _ type: FITBaseType, scale: Double = 1, lost: inout Int) -> Int64? {
        guard let raw = Self.scaled(value, scale: scale) else { return nil }
        guard Self.holds(raw, type) else {
            lost += 1
            return nil
        }
        return raw
    }

    /// Appends `value` as `type` (little endian), or the type's invalid value when it is `nil` or
    /// out of the type's range.
    @inline(__always)
    static func put(_ value: Int64?, _ type: FITBaseType, to bytes: inout [UInt8]) {
        let range: ClosedRange<Int64> = switch type {
        case .sint8: -128...127
        case .sint16: -32_768...32_767
        case .sint32: Int64(Int32.min)...Int64(Int32.max)
        case .uint16, .uint16z: 0...0xFFFF
        case .uint32, .uint32z: 0...0xFFFF_FFFF
        default: 0...0xFF
        }
        if let value, range.contains(value) {
            put(UInt64(bitPattern: value), size: type.size, to: &bytes)
        } else {
            put(type.invalidBits, size: type.size, to: &bytes)
        }
    }

    @inline(__always)
    static func put(_ bits: UInt64, size: Int, to bytes: inout [UInt8]) {
        for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * index))) }
    }

    /// Whether `number` is a valid value of `type` (in range, and not its invalid value).
    static func holds(_ number: Int64, _ type: FITBaseType) -> Bool {
        switch type {
        case .uint8: (0..<0xFF).contains(number)
        case .uint16: (0..<0xFFFF).contains(number)
        case .uint32: (0..<0xFFFF_FFFF).contains(number)
        case .sint8: (-127...126).contains(number)
        default: true
        }
    }

    /// Cadence as whole rpm and 1/128ths.
    static func cadence(_ value: Double) -> (whole: Double, fraction: Double) {
        var whole = value.rounded(.down)
        var fraction = ((value - whole) * 128).rounded()
        if fraction >= 128 {
            whole += 1
            fraction = 0
        }
        return (whole, fraction)
    }

    /// `(value + offset) × scale`, rounded; `nil` stays `nil`.
    static func scaled(_ value: Double?, scale: Double = 1, offset: Double = 0) -> Int64? {
        guard let value, value.isFinite else { return nil }
        let raw = ((value + offset) * scale).rounded()
        guard abs(raw) < 9e18 else { return nil }
        return Int64(raw)
    }
}
