extension DBusValue: DBusDecodable {
    /// Reads the next value, whatever its type, as it is: a variant stays a ``variant(_:)``, an
    /// array of bytes is ``bytes(_:)``.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        if case let .values(reader) = decoder.source {
            self = try reader.readValue()
            return
        }
        guard let code = try decoder.nextCode() else { throw decoder.mismatch("a value") }
        typealias Code = DBusDecoder.Code
        switch code {
        case Code.byte: self = .byte(try decoder.readInteger(UInt8.self))
        case Code.boolean: self = .boolean(try decoder.readBoolean())
        case Code.int16: self = .int16(try decoder.readInteger(Int16.self))
        case Code.uint16: self = .uint16(try decoder.readInteger(UInt16.self))
        case Code.int32: self = .int32(try decoder.readInteger(Int32.self))
        case Code.uint32: self = .uint32(try decoder.readInteger(UInt32.self))
        case Code.int64: self = .int64(try decoder.readInteger(Int64.self))
        case Code.uint64: self = .uint64(try decoder.readInteger(UInt64.self))
        case Code.double: self = .double(try decoder.readDouble())
        case Code.string: self = .string(try decoder.readString())
        case Code.objectPath: self = .objectPath(try decoder.readString())
        case Code.signature: self = .signature(try decoder.readString())
        case Code.unixFileDescriptor: self = .unixFileDescriptor(DBusFileDescriptor(owning: try decoder.readFileDescriptor()))
        case Code.array:
            let signature = decoder.nextSignature ?? "a"
            let element = String(signature.dropFirst())
            if element == "y" {
                self = .bytes(try decoder.readBytes())
            } else if element.hasPrefix("{") {
                let inner = element.dropFirst().dropLast()
                var entries: [DBusDictionaryEntry] = []
                try decoder.decodeDictionary(keyedBy: DBusValue.self) { (key: DBusValue, value: inout DBusDecoder) throws(DBusDecodingError) in
                    entries.append(DBusDictionaryEntry(key: key, value: try value.decode(DBusValue.self)))
                }
                self = .dictionary(key: String(inner.prefix(1)), value: String(inner.dropFirst()), entries)
            } else {
                var elements: [DBusValue] = []
                try decoder.decodeArray { (value: inout DBusDecoder) throws(DBusDecodingError) in elements.append(try value.decode(DBusValue.self)) }
                self = .array(element: element, elements)
            }
        case Code.structure:
            self = .structure(try decoder.decodeStructure { (fields: inout DBusDecoder) throws(DBusDecodingError) in try fields.decodeRest() })
        case Code.variant:
            self = .variant(try decoder.inContainer(Code.variant) { (inner: inout DBusDecoder) throws(DBusDecodingError) in
                try inner.decode(DBusValue.self)
            })
        default:
            throw decoder.mismatch("a D-Bus value")
        }
    }
}

extension DBusDecoder {
    /// Every value left, at the level being read, as it is.
    mutating func decodeRest() throws(DBusDecodingError) -> [DBusValue] {
        var values: [DBusValue] = []
        while try nextCode() != nil { values.append(try decode(DBusValue.self)) }
        return values
    }
}
