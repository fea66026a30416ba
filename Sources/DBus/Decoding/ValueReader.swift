#if canImport(Glibc)
import Glibc
#endif

/// The values a ``DBusDecoder`` reads when they were read from a message already (or made in
/// Swift): a cursor over ``DBusValue``s, with a frame for each container entered.
final class ValueReader {
    /// One thing at a level: a value, or a dictionary's entry (a key and its value).
    private enum Item {
        case value(DBusValue)
        case entry(DBusDictionaryEntry)

        var code: UInt8 {
            switch self {
            case let .value(value): value.typeCode
            case .entry: DBusDecoder.Code.dictionaryEntry
            }
        }

        var signature: String {
            switch self {
            case let .value(value): value.signature
            case let .entry(entry): "{" + entry.key.signature + entry.value.signature + "}"
            }
        }
    }

    private struct Frame {
        var items: [Item]
        var index = 0
    }

    private var frames: [Frame]

    init(_ values: [DBusValue]) {
        frames = [Frame(items: values.map(Item.value))]
    }

    private var next: Item? {
        let frame = frames[frames.count - 1]
        return frame.index < frame.items.count ? frame.items[frame.index] : nil
    }

    /// Takes the next item, which `accepts` must find right, else throws expecting `expected`.
    private func take<T>(_ expected: String, _ accepts: (DBusValue) -> T?) throws(DBusDecodingError) -> T {
        guard case let .value(value)? = next, let result = accepts(value) else {
            throw DBusDecodingError(expected: expected, found: next?.signature)
        }
        frames[frames.count - 1].index += 1
        return result
    }

    /// The next value as it is, taken (what a ``DBusValue`` decodes to).
    func readValue() throws(DBusDecodingError) -> DBusValue {
        try take("a value") { $0 }
    }

    func nextCode() -> UInt8? {
        next?.code
    }

    func nextSignature() -> String? {
        next?.signature
    }

    func skip() throws(DBusDecodingError) {
        guard next != nil else { throw DBusDecodingError(expected: "a value", found: nil) }
        frames[frames.count - 1].index += 1
    }

    /// Enters the next item, a container of type `code`: its contents become the level read.
    func enter(_ code: UInt8) throws(DBusDecodingError) {
        let contents: [Item]? = switch next {
        case let .value(.array(_, elements))? where code == DBusDecoder.Code.array: elements.map(Item.value)
        case let .value(.bytes(bytes))? where code == DBusDecoder.Code.array: bytes.map { .value(.byte($0)) }
        case let .value(.dictionary(_, _, entries))? where code == DBusDecoder.Code.array: entries.map(Item.entry)
        case let .value(.structure(fields))? where code == DBusDecoder.Code.structure: fields.map(Item.value)
        case let .value(.variant(inner))? where code == DBusDecoder.Code.variant: [.value(inner)]
        case let .entry(entry)? where code == DBusDecoder.Code.dictionaryEntry: [.value(entry.key), .value(entry.value)]
        default: nil
        }
        guard let contents else {
            throw DBusDecodingError(expected: DBusDecoder.containerName(code), found: next?.signature)
        }
        frames[frames.count - 1].index += 1
        frames.append(Frame(items: contents))
    }

    /// Leaves the container entered last.
    func exit() {
        if frames.count > 1 { frames.removeLast() }
    }

    func readString() throws(DBusDecodingError) -> String {
        try take("a string (s)") { value in
            switch value {
            case let .string(text), let .objectPath(text), let .signature(text): text
            default: nil
            }
        }
    }

    func readBoolean() throws(DBusDecodingError) -> Bool {
        try take("a boolean (b)") { if case let .boolean(value) = $0 { value } else { nil } }
    }

    func readDouble() throws(DBusDecodingError) -> Double {
        try take("a number (d)") { value in
            if case let .double(number) = value { return number }
            return switch value.integer {
            case let .signed(number)?: Double(number)
            case let .unsigned(number)?: Double(number)
            case nil: nil
            }
        }
    }

    func readInteger() throws(DBusDecodingError) -> DBusDecoder.Integer {
        try take("an integer") { $0.integer }
    }

    func readBytes() throws(DBusDecodingError) -> [UInt8] {
        try take("an array of bytes (ay)") { value in
            if case .variant = value { return nil }
            return value.bytesValue
        }
    }

    func readFileDescriptor() throws(DBusDecodingError) -> Int32 {
        try take("a file descriptor (h)") { value in
            guard case let .unixFileDescriptor(file) = value, let descriptor = file.rawValue else { return nil }
            return dup(descriptor)
        }
    }
}

extension DBusValue {
    /// The first character of the signature, as a type code (`r` for a structure).
    var typeCode: UInt8 {
        switch self {
        case .byte: DBusDecoder.Code.byte
        case .boolean: DBusDecoder.Code.boolean
        case .int16: DBusDecoder.Code.int16
        case .uint16: DBusDecoder.Code.uint16
        case .int32: DBusDecoder.Code.int32
        case .uint32: DBusDecoder.Code.uint32
        case .int64: DBusDecoder.Code.int64
        case .uint64: DBusDecoder.Code.uint64
        case .double: DBusDecoder.Code.double
        case .string: DBusDecoder.Code.string
        case .objectPath: DBusDecoder.Code.objectPath
        case .signature: DBusDecoder.Code.signature
        case .unixFileDescriptor: DBusDecoder.Code.unixFileDescriptor
        case .bytes, .array, .dictionary: DBusDecoder.Code.array
        case .structure: DBusDecoder.Code.structure
        case .variant: DBusDecoder.Code.variant
        }
    }

    /// An integer value as read, `nil` for any other.
    var integer: DBusDecoder.Integer? {
        switch self {
        case let .byte(value): .unsigned(UInt64(value))
        case let .int16(value): .signed(Int64(value))
        case let .uint16(value): .unsigned(UInt64(value))
        case let .int32(value): .signed(Int64(value))
        case let .uint32(value): .unsigned(UInt64(value))
        case let .int64(value): .signed(value)
        case let .uint64(value): .unsigned(value)
        default: nil
        }
    }
}

extension DBusDecoder {
    /// How an error names a container's type code.
    static func containerName(_ code: UInt8) -> String {
        switch code {
        case Code.array: "an array (a)"
        case Code.structure: "a structure (...)"
        case Code.dictionaryEntry: "a dictionary entry {...}"
        case Code.variant: "a variant (v)"
        default: "a container"
        }
    }
}
