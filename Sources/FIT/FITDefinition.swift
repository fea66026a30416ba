/// A definition message: the layout of the data messages that follow under its local message
/// type, until another definition takes that local type.
///
/// It says which global message they are (`record` is 20), whether their multi-byte values are
/// little or big endian, and the fields, in the order their bytes come: each with its field
/// number in the profile, its size and its base type; then any developer fields.
public final class FITDefinition: Sendable {
    /// The local message type it defines (0-15).
    public let localType: UInt8
    /// The global message number (``FITMessageNumber``).
    public let globalNumber: UInt16
    /// Whether multi-byte values (and the global number itself) are big endian.
    public let isBigEndian: Bool
    /// The fields, in the order of their bytes.
    public let fields: [FITFieldDefinition]
    /// The developer fields, after the others.
    public let developerFields: [FITDeveloperFieldDefinition]
    /// The size of a data message's content (the bytes after its record header).
    public let size: Int
    /// The file offset of the definition message's record header.
    public let offset: Int
    /// For each field number, 1 + its index in ``fields`` (0: absent), for lookups by number.
    private let indexByNumber: [UInt8]
    /// How each field of ``fields`` is read, worked out once: a large file's messages have their
    /// fields read a million times each.
    let layouts: [FITFieldLayout]

    /// A definition with these fields; the offsets of the fields' bytes follow from their order.
    public init(
        localType: UInt8, globalNumber: UInt16, isBigEndian: Bool, fields: [FITFieldDefinition],
        developerFields: [FITDeveloperFieldDefinition] = [], offset: Int = 0
    ) {
        self.localType = localType
        self.globalNumber = globalNumber
        self.isBigEndian = isBigEndian
        self.offset = offset
        var placed: [FITFieldDefinition] = []
        var position = 0
        var index = [UInt8](repeating: 0, count: 256)
        for var field in fields {
            field.position = position
            position += field.size
            // A field number given twice: the first is the one looked up, as other decoders do.
            if index[Int(field.number)] == 0, placed.count < 255 { index[Int(field.number)] = UInt8(placed.count + 1) }
            placed.append(field)
        }
        var developer: [FITDeveloperFieldDefinition] = []
        for var field in developerFields {
            field.position = position
            position += field.size
            developer.append(field)
        }
        self.fields = placed
        self.developerFields = developer
        self.indexByNumber = index
        self.layouts = placed.map { FITFieldLayout(position: $0.position, type: $0.effectiveType, count: $0.count) }
        self.size = position
    }

    /// How the field with `number` is read, if the definition has it.
    @inline(__always)
    func layout(_ number: UInt8) -> FITFieldLayout? {
        let index = indexOfField(number)
        return index < 0 ? nil : layouts[index]
    }

    /// The field with `number`, if the definition has it.
    public func field(_ number: UInt8) -> FITFieldDefinition? {
        let index = indexOfField(number)
        return index < 0 ? nil : fields[index]
    }

    /// The index in ``fields`` of the field with `number`, or -1.
    func indexOfField(_ number: UInt8) -> Int {
        Int(indexByNumber[Int(number)]) - 1
    }
}

/// Where a field's bytes lie in a message's content, the base type they are read as
/// (``FITFieldDefinition/effectiveType``) and how many values they hold.
struct FITFieldLayout: Sendable {
    var position: Int
    var type: FITBaseType
    var count: Int
}

/// One field of a ``FITDefinition``.
public struct FITFieldDefinition: Sendable, Hashable {
    /// The field number in the profile's message (`record`'s heart rate is 3).
    public var number: UInt8
    /// Its size in bytes: a multiple of the base type's size (an array), or any size for
    /// strings and bytes. A size that is not a multiple is read as ``effectiveType`` says.
    public var size: Int
    /// The base type as given.
    public var baseType: FITBaseType
    /// Where its bytes begin in a data message's content (set by the definition).
    public internal(set) var position = 0

    /// A field of `size` bytes (the base type's size when omitted).
    public init(number: UInt8, baseType: FITBaseType, size: Int? = nil) {
        self.number = number
        self.baseType = baseType
        self.size = size ?? baseType.size
    }

    /// The base type its bytes are read as: ``baseType``, or for a size that is not a multiple of
    /// it (a misaligned field, as some devices write: Coros gives `event.data`, a `uint32`, one
    /// byte), the integer type of its size when it is smaller (1, 2 or 4 bytes; signed if the base
    /// type is), as Garmin's decoder reads it, else ``FITBaseType/byte``.
    public var effectiveType: FITBaseType {
        if size % baseType.size == 0 { return baseType }
        guard size < baseType.size, !baseType.isFloatingPoint else { return .byte }
        switch size {
        case 1: return baseType.isSigned ? .sint8 : .uint8
        case 2: return baseType.isSigned ? .sint16 : .uint16
        case 4: return baseType.isSigned ? .sint32 : .uint32
        default: return .byte
        }
    }

    /// How many values it holds.
    public var count: Int {
        let type = effectiveType
        return type == .string || type == .byte ? 1 : size / type.size
    }
}

/// A developer field of a ``FITDefinition``: its number and size, the developer data index of the
/// app that defined it, and that app's description of it when the file gave one before.
public struct FITDeveloperFieldDefinition: Sendable, Hashable {
    /// The field number the app gave it.
    public var number: UInt8
    /// Its size in bytes.
    public var size: Int
    /// The developer data index (which `developer_data_id` message defines the app).
    public var developerIndex: UInt8
    /// The `field_description` the file gave for it before this definition, if any: without
    /// one its bytes are kept raw.
    public var description: FITDeveloperFieldDescription?
    /// Where its bytes begin in a data message's content (set by the definition).
    public internal(set) var position = 0

    /// A developer field; `description` when known.
    public init(number: UInt8, size: Int, developerIndex: UInt8, description: FITDeveloperFieldDescription? = nil) {
        self.number = number
        self.size = size
        self.developerIndex = developerIndex
        self.description = description
    }
}

/// What a `field_description` message (206) says of a developer field: its name, base type,
/// units, scale and offset, and the profile field it stands for, if any (a running-power app's
/// "Power" may say it is `record`'s `power`).
public struct FITDeveloperFieldDescription: Sendable, Hashable {
    /// The developer data index of the app that defines it.
    public var developerIndex: UInt8
    /// The field number it defines.
    public var number: UInt8
    /// The base type of its values.
    public var baseType: FITBaseType
    /// Its name, as the app wrote it (`"Form Power"`).
    public var name: String?
    /// Its units (`"Watts"`).
    public var units: String?
    /// Scale and offset: a stored value `v` means `v / scale - offset`.
    public var scale: Double?
    /// The offset (see ``scale``).
    public var offset: Double?
    /// The profile message and field it stands for, when it says so.
    public var nativeMessage: UInt16?
    /// The profile field of ``nativeMessage`` it stands for.
    public var nativeField: UInt8?

    /// A description.
    public init(
        developerIndex: UInt8, number: UInt8, baseType: FITBaseType, name: String? = nil, units: String? = nil,
        scale: Double? = nil, offset: Double? = nil, nativeMessage: UInt16? = nil, nativeField: UInt8? = nil
    ) {
        self.developerIndex = developerIndex
        self.number = number
        self.baseType = baseType
        self.name = name
        self.units = units
        self.scale = scale
        self.offset = offset
        self.nativeMessage = nativeMessage
        self.nativeField = nativeField
    }
}
