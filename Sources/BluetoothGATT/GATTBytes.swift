/// Why a notification could not be read: what was wrong, and at which byte.
public struct MalformedNotification: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the value is (`Heart Rate Measurement`).
    public var characteristic: String
    /// What is wrong with it.
    public var reason: Reason
    /// The byte where it went wrong.
    public var offset: Int
    /// The value, as received.
    public var bytes: [UInt8]

    /// What can be wrong with a notification.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// It ends before a field its flags announce: `field` needed `needed` bytes.
        case truncated(field: String, needed: Int)
        /// Bytes follow the last field its flags announce.
        case trailingBytes(Int)
        /// A field's value is outside what the specification allows.
        case outOfRange(field: String, value: Int)
        /// It is empty.
        case empty

        public var description: String {
            switch self {
            case let .truncated(field, needed): "it ends before its \(field) (\(needed) bytes)"
            case let .trailingBytes(count): "\(count) bytes follow its last field"
            case let .outOfRange(field, value): "its \(field) is \(value), outside the specification's range"
            case .empty: "it is empty"
            }
        }
    }

    /// A short name of the reason, for counting: `truncated`, `trailing_bytes`, `out_of_range`, `empty`.
    public var reasonKey: String {
        switch reason {
        case .truncated: "truncated"
        case .trailingBytes: "trailing_bytes"
        case .outOfRange: "out_of_range"
        case .empty: "empty"
        }
    }

    public var description: String {
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "A \(characteristic) notification was dropped: \(reason), at byte \(offset) of \(hex.joined(separator: " "))."
    }
}

/// Reads a GATT value's fields in order, little-endian as the Bluetooth specifications lay them
/// out, throwing ``MalformedNotification`` at the first field the value is too short for.
struct GATTBytes {
    let bytes: [UInt8]
    let characteristic: String
    private(set) var offset = 0

    init(_ bytes: [UInt8], characteristic: String) {
        self.bytes = bytes
        self.characteristic = characteristic
    }

    var remaining: Int { bytes.count - offset }

    func malformed(_ reason: MalformedNotification.Reason, at offset: Int? = nil) -> MalformedNotification {
        MalformedNotification(characteristic: characteristic, reason: reason, offset: offset ?? self.offset, bytes: bytes)
    }

    private mutating func take(_ count: Int, _ field: String) throws(MalformedNotification) -> ArraySlice<UInt8> {
        guard remaining >= count else { throw malformed(.truncated(field: field, needed: count)) }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func uint8(_ field: String) throws(MalformedNotification) -> UInt8 {
        try take(1, field).first!
    }

    mutating func uint16(_ field: String) throws(MalformedNotification) -> UInt16 {
        let slice = try take(2, field)
        return UInt16(slice[slice.startIndex]) | UInt16(slice[slice.startIndex + 1]) << 8
    }

    mutating func sint16(_ field: String) throws(MalformedNotification) -> Int16 {
        Int16(bitPattern: try uint16(field))
    }

    mutating func uint24(_ field: String) throws(MalformedNotification) -> UInt32 {
        let slice = try take(3, field)
        return UInt32(slice[slice.startIndex]) | UInt32(slice[slice.startIndex + 1]) << 8 | UInt32(slice[slice.startIndex + 2]) << 16
    }

    mutating func uint32(_ field: String) throws(MalformedNotification) -> UInt32 {
        let slice = try take(4, field)
        return (0..<4).reduce(UInt32(0)) { value, index in value | UInt32(slice[slice.startIndex + index]) << (8 * index) }
    }

    /// Passes over the rest of the value (what a caller took whole).
    mutating func skipToEnd() {
        offset = bytes.count
    }

    /// Throws when bytes are left after the last field.
    func end() throws(MalformedNotification) {
        guard remaining == 0 else { throw malformed(.trailingBytes(remaining)) }
    }
}
