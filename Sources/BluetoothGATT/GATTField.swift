/// One field of a GATT value as its specification lays it out: its name, its width and sign, and
/// how many raw steps make one unit of the Swift value (`scale`): 360 for a speed in m/s sent in
/// 0.01 km/h, 2 for a cadence sent in 1/2 rpm. Reading divides by `scale`, writing multiplies and
/// rounds, so a value read and written again is the same raw number.
struct GATTField: Sendable {
    /// The field's name, as errors say it (`instantaneous speed`).
    let name: String
    /// Its width in bytes: 1 to 4.
    let size: Int
    /// Whether it is signed (two's complement).
    let signed: Bool
    /// Raw steps per unit of the Swift value.
    let scale: Double
    /// The Swift value's unit, as errors say it (`m/s`, `%`); empty for a count.
    let unit: String

    static func uint8(_ name: String, scale: Double = 1, unit: String = "") -> GATTField {
        GATTField(name: name, size: 1, signed: false, scale: scale, unit: unit)
    }

    static func uint16(_ name: String, scale: Double = 1, unit: String = "") -> GATTField {
        GATTField(name: name, size: 2, signed: false, scale: scale, unit: unit)
    }

    static func sint16(_ name: String, scale: Double = 1, unit: String = "") -> GATTField {
        GATTField(name: name, size: 2, signed: true, scale: scale, unit: unit)
    }

    static func uint24(_ name: String, scale: Double = 1, unit: String = "") -> GATTField {
        GATTField(name: name, size: 3, signed: false, scale: scale, unit: unit)
    }

    static func uint32(_ name: String, scale: Double = 1, unit: String = "") -> GATTField {
        GATTField(name: name, size: 4, signed: false, scale: scale, unit: unit)
    }

    /// The raw numbers the field can carry.
    var rawRange: ClosedRange<Int> {
        let bits = 8 * size
        return signed ? -(1 << (bits - 1))...((1 << (bits - 1)) - 1) : 0...((1 << bits) - 1)
    }

    /// The Swift values the field can carry.
    var range: ClosedRange<Double> {
        Double(rawRange.lowerBound) / scale...Double(rawRange.upperBound) / scale
    }

    /// `value` as the nearest raw number the field can carry: what a device does with a reading
    /// past what its field holds (a display saturates). Not a number is 0, or the nearest bound.
    func clamped(_ value: Double) -> Int {
        let raw = (value * scale).rounded()
        guard !raw.isNaN else { return min(max(0, rawRange.lowerBound), rawRange.upperBound) }
        if raw <= Double(rawRange.lowerBound) { return rawRange.lowerBound }
        if raw >= Double(rawRange.upperBound) { return rawRange.upperBound }
        return Int(raw)
    }

    /// `value` as a raw number, or ``UnencodableValue`` when the field cannot carry it.
    func checked(_ value: Double, in characteristic: String) throws(UnencodableValue) -> Int {
        let raw = (value * scale).rounded()
        guard raw >= Double(rawRange.lowerBound), raw <= Double(rawRange.upperBound) else {
            throw UnencodableValue(characteristic: characteristic, field: name, value: value, unit: unit, range: range)
        }
        return Int(raw)
    }
}

/// A value a request cannot carry: its field is too narrow for it (a grade of 400 %, where the
/// field holds -327.68 % to 327.67 %), or it is not a number.
public struct UnencodableValue: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the value is (`Fitness Machine Control Point`).
    public var characteristic: String
    /// The field (`grade`).
    public var field: String
    /// The value that was asked for, in the field's unit.
    public var value: Double
    /// The unit (`%`, `m/s`); empty for a count.
    public var unit: String
    /// What the field can carry, in the same unit.
    public var range: ClosedRange<Double>

    public var description: String {
        let unit = unit.isEmpty ? "" : " " + unit
        return "A \(characteristic) value cannot be written: its \(field) of \(value)\(unit) is outside the "
            + "\(range.lowerBound)...\(range.upperBound)\(unit) its field can carry."
    }
}

extension GATTBytes {
    /// Reads `field` as a raw number.
    mutating func raw(_ field: GATTField) throws(MalformedNotification) -> Int {
        switch (field.size, field.signed) {
        case (1, false): Int(try uint8(field.name))
        case (1, true): Int(Int8(bitPattern: try uint8(field.name)))
        case (2, false): Int(try uint16(field.name))
        case (2, true): Int(try sint16(field.name))
        case (3, _): Int(try uint24(field.name))
        default: Int(try uint32(field.name))
        }
    }

    /// Reads `field` as its Swift value (the raw number over the field's scale).
    mutating func value(_ field: GATTField) throws(MalformedNotification) -> Double {
        Double(try raw(field)) / field.scale
    }

    /// Reads `field` as a whole number.
    mutating func int(_ field: GATTField) throws(MalformedNotification) -> Int {
        try raw(field)
    }

    /// Reads `field` as whole seconds.
    mutating func seconds(_ field: GATTField) throws(MalformedNotification) -> Duration {
        .seconds(try raw(field))
    }

    /// The bytes after the last field read, taken.
    mutating func rest() -> [UInt8] {
        defer { skipToEnd() }
        return Array(bytes[offset...])
    }
}

/// Writes a GATT value's fields in order, little-endian, as ``GATTBytes`` reads them.
struct GATTWriter {
    private(set) var bytes: [UInt8]

    init(_ bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// Writes the raw number `raw` in `field`'s width (two's complement when signed).
    mutating func write(_ raw: Int, _ field: GATTField) {
        for index in 0..<field.size { bytes.append(UInt8(truncatingIfNeeded: raw >> (8 * index))) }
    }

    /// Writes `value`, clamped to what `field` can carry.
    mutating func clamped(_ value: Double, _ field: GATTField) {
        write(field.clamped(value), field)
    }

    /// Writes `value` in whole seconds, clamped.
    mutating func clamped(_ value: Duration, _ field: GATTField) {
        clamped(value.inSeconds, field)
    }

    /// Writes `value`, or throws when `field` cannot carry it.
    mutating func checked(_ value: Double, _ field: GATTField, in characteristic: String) throws(UnencodableValue) {
        write(try field.checked(value, in: characteristic), field)
    }

    /// Writes `value` in whole seconds, or throws when `field` cannot carry it.
    mutating func checked(_ value: Duration, _ field: GATTField, in characteristic: String) throws(UnencodableValue) {
        try checked(value.inSeconds, field, in: characteristic)
    }

    mutating func append(_ more: [UInt8]) {
        bytes += more
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
