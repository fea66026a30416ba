/// One data message of a FIT file, as ``FITReader`` delivers it: the bytes of its fields and the
/// definition that lays them out, with accessors that read a field by its number.
///
/// ```swift
/// if message.globalNumber == FITMessageNumber.record, let beats = message.integer(3) {
///     print("heart rate \(beats) at", message.timestamp ?? 0)
/// }
/// ```
///
/// Every accessor returns `nil` for a field the message does not have and for the invalid value of
/// its base type (the protocol's "no value"). Multi-byte values are read in the definition's byte
/// order. Scale and offset are the profile's business: ``number(_:scale:offset:index:)`` applies
/// those given.
public struct FITMessage: Sendable {
    /// The definition its bytes follow.
    public let definition: FITDefinition
    /// The message's content: its fields' bytes, then its developer fields', as ``definition`` lays them out.
    public let content: [UInt8]
    /// The offset of its record header from the start of the input (of the decompressed data for a `.fit.gz`).
    public let offset: Int
    /// Which FIT file of a chain it belongs to, from 0.
    public let fileIndex: Int
    /// The time a compressed-timestamp record header gave it (FIT seconds), if it had one.
    public let compressedTimestamp: UInt32?

    /// A message; ``FITReader`` makes them.
    public init(definition: FITDefinition, content: [UInt8], offset: Int, fileIndex: Int = 0, compressedTimestamp: UInt32? = nil) {
        precondition(content.count == definition.size, "a message's content has its definition's size")
        self.definition = definition
        self.content = content
        self.offset = offset
        self.fileIndex = fileIndex
        self.compressedTimestamp = compressedTimestamp
    }

    /// The global message number (``FITMessageNumber``).
    public var globalNumber: UInt16 { definition.globalNumber }

    /// The local message type it came under.
    public var localType: UInt8 { definition.localType }

    /// Its time in FIT seconds (since 1989-12-31T00:00:00Z): its `timestamp` field (253) when
    /// valid, else the time a compressed-timestamp header gave it. See ``FITTime``.
    public var timestamp: UInt32? {
        integer(FITField.timestamp).map { UInt32(truncatingIfNeeded: $0) } ?? compressedTimestamp
    }

    /// Whether it has the field `number` with a valid value.
    public func has(_ number: UInt8) -> Bool {
        value(number) != nil
    }

    /// The integer value of field `number` (element `index` of an array), for any integer base
    /// type; `nil` when absent, invalid, not an integer, or an unsigned 64-bit value past `Int64.max`.
    public func integer(_ number: UInt8, index: Int = 0) -> Int64? {
        guard let field = definition.layout(number) else { return nil }
        let type = field.type
        guard type.isNumeric, !type.isFloatingPoint, index >= 0, index < field.count else { return nil }
        let bits = FITBytes.bits(content, at: field.position + index * type.size, size: type.size, bigEndian: definition.isBigEndian)
        guard bits != type.invalidBits else { return nil }
        return FITBytes.integer(bits, type: type)
    }

    /// The numeric value of field `number` (element `index` of an array), for any numeric base
    /// type, as `value / scale - offset`; `nil` when absent, invalid or not finite.
    public func number(_ number: UInt8, scale: Double = 1, offset: Double = 0, index: Int = 0) -> Double? {
        guard let field = definition.layout(number) else { return nil }
        let type = field.type
        guard type.isNumeric, index >= 0, index < field.count else { return nil }
        let bits = FITBytes.bits(content, at: field.position + index * type.size, size: type.size, bigEndian: definition.isBigEndian)
        guard bits != type.invalidBits, let raw = FITBytes.double(bits, type: type) else { return nil }
        let value = raw / scale - offset
        return value.isFinite ? value : nil
    }

    /// The text of a string field `number`: up to its first zero byte, as UTF-8 (invalid
    /// sequences replaced); `nil` when absent or empty.
    public func string(_ number: UInt8) -> String? {
        guard let field = definition.field(number), field.baseType == .string else { return nil }
        return FITBytes.string(content[field.position..<field.position + field.size])
    }

    /// The bytes of field `number` as stored, whatever its type; `nil` when absent.
    public func rawBytes(_ number: UInt8) -> ArraySlice<UInt8>? {
        guard let field = definition.field(number) else { return nil }
        return content[field.position..<field.position + field.size]
    }

    /// Field `number`'s value, decoded by its base type (an array for a field of several
    /// values); `nil` when absent or invalid.
    public func value(_ number: UInt8) -> FITValue? {
        guard let field = definition.field(number) else { return nil }
        return FITBytes.value(content, position: field.position, size: field.size, type: field.effectiveType, bigEndian: definition.isBigEndian)
    }

    /// Every field with a valid value, in the order of its bytes.
    public var fields: [FITFieldValue] {
        definition.fields.compactMap { field in
            FITBytes.value(content, position: field.position, size: field.size, type: field.effectiveType, bigEndian: definition.isBigEndian)
                .map { FITFieldValue(number: field.number, baseType: field.baseType, value: $0) }
        }
    }

    /// The developer fields, each with its description (when the file gave one) and its value:
    /// decoded by the description's base type, else its raw bytes. Developer fields are kept in
    /// little or big endian as the definition says, like the others.
    public var developerValues: [FITDeveloperValue] {
        definition.developerFields.map { field in
            let type = field.description.map { field.size % $0.baseType.size == 0 ? $0.baseType : .byte } ?? .byte
            let value = FITBytes.value(content, position: field.position, size: field.size, type: type, bigEndian: definition.isBigEndian)
            return FITDeveloperValue(field: field, value: value)
        }
    }
}

/// A field's value, as ``FITMessage/value(_:)`` decodes it.
public enum FITValue: Sendable, Hashable, CustomStringConvertible {
    /// An integer of any integer base type (an unsigned 64-bit value past `Int64.max` is ``unsigned(_:)``).
    case integer(Int64)
    /// An unsigned 64-bit value past `Int64.max`.
    case unsigned(UInt64)
    /// A `float32` or `float64` value.
    case float(Double)
    /// Text.
    case string(String)
    /// Raw bytes (`byte` fields, misaligned fields, developer fields without a description).
    case bytes([UInt8])
    /// The values of an array field; `nil` for an invalid element.
    case array([FITValue?])

    /// The value as a number, when it is one (the first valid element of an array).
    public var number: Double? {
        switch self {
        case let .integer(value): Double(value)
        case let .unsigned(value): Double(value)
        case let .float(value): value
        case let .array(values): values.lazy.compactMap { $0?.number }.first
        case .string, .bytes: nil
        }
    }

    /// The value as text: `142`, `1.5`, `"Edge 530"` (unquoted), `[1, 2]`, `0x01ff`.
    public var description: String {
        switch self {
        case let .integer(value): String(value)
        case let .unsigned(value): String(value)
        case let .float(value): String(value)
        case let .string(text): text
        case let .bytes(bytes): "0x" + bytes.map { String($0, radix: 16).leftPadded(2) }.joined()
        case let .array(values): "[" + values.map { $0?.description ?? "-" }.joined(separator: ", ") + "]"
        }
    }
}

/// A field number and its value, as ``FITMessage/fields`` lists them.
public struct FITFieldValue: Sendable, Hashable {
    /// The field number in the profile's message.
    public var number: UInt8
    /// Its base type as defined.
    public var baseType: FITBaseType
    /// Its value.
    public var value: FITValue
}

/// A developer field of a message and its value, as ``FITMessage/developerValues`` lists them.
public struct FITDeveloperValue: Sendable, Hashable {
    /// The field as defined, with its description when the file gave one.
    public var field: FITDeveloperFieldDefinition
    /// Its value; `nil` when invalid.
    public var value: FITValue?

    /// The value as a number with the description's scale and offset applied, when it is a number.
    public var scaledNumber: Double? {
        guard let raw = value?.number else { return nil }
        let value = raw / (field.description?.scale ?? 1) - (field.description?.offset ?? 0)
        return value.isFinite ? value : nil
    }
}

extension String {
    /// The text with `"0"`s added in front up to `length` characters.
    fileprivate func leftPadded(_ length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
