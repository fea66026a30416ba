/// The base types of FIT fields, as the FIT protocol defines them: the byte a definition message
/// gives for each field, its size, and the value that means "invalid" (no value).
///
/// A field's size may be a multiple of its base type's size: the field is then an array. A
/// definition's base-type byte is read by its number (its low five bits), so a writer that sets
/// the endian-ability bit wrongly is still understood; a number the protocol does not define is
/// read as ``byte``.
///
/// ```swift
/// FITBaseType(definitionByte: 0x86)     // .uint32
/// FITBaseType.uint16.invalidBits        // 0xFFFF
/// ```
public enum FITBaseType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An enumeration of the profile, one byte; invalid 0xFF.
    case enumeration = 0x00
    /// Signed 8-bit integer; invalid 0x7F.
    case sint8 = 0x01
    /// Unsigned 8-bit integer; invalid 0xFF.
    case uint8 = 0x02
    /// Signed 16-bit integer; invalid 0x7FFF.
    case sint16 = 0x83
    /// Unsigned 16-bit integer; invalid 0xFFFF.
    case uint16 = 0x84
    /// Signed 32-bit integer; invalid 0x7FFFFFFF.
    case sint32 = 0x85
    /// Unsigned 32-bit integer; invalid 0xFFFFFFFF.
    case uint32 = 0x86
    /// UTF-8 text ended by a zero byte (or the field's end); invalid when empty.
    case string = 0x07
    /// IEEE 754 single precision; invalid when all bits are set.
    case float32 = 0x88
    /// IEEE 754 double precision; invalid when all bits are set.
    case float64 = 0x89
    /// Unsigned 8-bit integer whose invalid value is 0.
    case uint8z = 0x0A
    /// Unsigned 16-bit integer whose invalid value is 0.
    case uint16z = 0x8B
    /// Unsigned 32-bit integer whose invalid value is 0.
    case uint32z = 0x8C
    /// Raw bytes; invalid when every byte of the field is 0xFF.
    case byte = 0x0D
    /// Signed 64-bit integer; invalid 0x7FFFFFFFFFFFFFFF.
    case sint64 = 0x8E
    /// Unsigned 64-bit integer; invalid 0xFFFFFFFFFFFFFFFF.
    case uint64 = 0x8F
    /// Unsigned 64-bit integer whose invalid value is 0.
    case uint64z = 0x90

    /// The base type a definition's base-type byte names, by its number (low five bits);
    /// ``byte`` for a number the protocol does not define.
    public init(definitionByte: UInt8) {
        self = Self.byNumber[Int(definitionByte & 0x1F)]
    }

    private static let byNumber: [FITBaseType] = {
        var table = [FITBaseType](repeating: .byte, count: 32)
        for type in FITBaseType.allCases { table[Int(type.rawValue & 0x1F)] = type }
        return table
    }()

    /// The size of one value, in bytes (1 for ``string`` and ``byte``: a field of them holds as
    /// many as its size).
    public var size: Int {
        switch self {
        case .enumeration, .sint8, .uint8, .string, .uint8z, .byte: 1
        case .sint16, .uint16, .uint16z: 2
        case .sint32, .uint32, .float32, .uint32z: 4
        case .float64, .sint64, .uint64, .uint64z: 8
        }
    }

    /// The bits of the invalid value, as an unsigned number of ``size`` bytes (0 for ``string``,
    /// whose invalid value is the empty text, and 0xFF for ``byte``, per byte).
    public var invalidBits: UInt64 {
        switch self {
        case .enumeration, .uint8, .byte: 0xFF
        case .sint8: 0x7F
        case .sint16: 0x7FFF
        case .uint16: 0xFFFF
        case .sint32: 0x7FFF_FFFF
        case .uint32, .float32: 0xFFFF_FFFF
        case .float64, .uint64: 0xFFFF_FFFF_FFFF_FFFF
        case .sint64: 0x7FFF_FFFF_FFFF_FFFF
        case .string, .uint8z, .uint16z, .uint32z, .uint64z: 0
        }
    }

    /// Whether its values are signed integers.
    public var isSigned: Bool {
        switch self {
        case .sint8, .sint16, .sint32, .sint64: true
        default: false
        }
    }

    /// Whether its values are floating point.
    public var isFloatingPoint: Bool {
        self == .float32 || self == .float64
    }

    /// Whether its values are numbers (everything but ``string`` and ``byte``).
    public var isNumeric: Bool {
        self != .string && self != .byte
    }

    /// The definition byte a writer gives it: the number with the endian-ability bit for
    /// multi-byte types, as the protocol lists them (`0x84` for ``uint16``).
    public var definitionByte: UInt8 { rawValue }

    /// The protocol's name of the type: `uint16`, `enum`, `string`.
    public var description: String {
        Self.names[self] ?? "byte"
    }

    private static let names: [FITBaseType: String] = [
        .enumeration: "enum", .sint8: "sint8", .uint8: "uint8", .sint16: "sint16", .uint16: "uint16", .sint32: "sint32",
        .uint32: "uint32", .string: "string", .float32: "float32", .float64: "float64", .uint8z: "uint8z",
        .uint16z: "uint16z", .uint32z: "uint32z", .byte: "byte", .sint64: "sint64", .uint64: "uint64",
        .uint64z: "uint64z",
    ]
}
