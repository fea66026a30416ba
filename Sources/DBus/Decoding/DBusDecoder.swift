/// Reads D-Bus values in order, for a ``DBusDecodable`` type: from a message as it arrives (on
/// the connection's thread), or from ``DBusValue``s already read (``DBusValue/decode(_:)``).
///
/// A variant (`v`) is looked through: ``decode(_:)`` of a `Double` reads the double inside a
/// variant as well as a bare one. Only ``DBusValue`` keeps a variant as ``DBusValue/variant(_:)``.
///
/// ```swift
/// struct Timestamp: DBusDecodable {   // GeoClue's (tt): seconds and microseconds
///     var seconds: UInt64
///     var microseconds: UInt64
///
///     init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
///         (seconds, microseconds) = try decoder.decodeStructure { fields throws(DBusDecodingError) in
///             (try fields.decode(), try fields.decode())
///         }
///     }
/// }
/// ```
public struct DBusDecoder {
    /// Where the values come from.
    enum Source {
        /// A message, read in place (sd-bus keeps the position).
        case message(MessageReader)
        /// Values already read.
        case values(ValueReader)
    }

    var source: Source

    init(_ source: Source) {
        self.source = source
    }

    /// A decoder of `values`, in order, as a message's body holds them.
    init(values: [DBusValue]) {
        source = .values(ValueReader(values))
    }

    // MARK: - What is next

    /// The signature of the next value (`s`, `a{sv}`), or `nil` at the end of the values (or of the
    /// container being read).
    public var nextSignature: String? {
        switch source {
        case let .message(reader): reader.nextSignature()
        case let .values(reader): reader.nextSignature()
        }
    }

    /// Whether the values (or the container being read) have ended.
    public var isAtEnd: Bool {
        (try? nextCode()) == nil  // unreadable: nothing more reads; a decode says why
    }

    /// The type code of the next value (`UInt8(ascii: "s")`), or `nil` at the end.
    func nextCode() throws(DBusDecodingError) -> UInt8? {
        switch source {
        case let .message(reader): try reader.nextCode()
        case let .values(reader): reader.nextCode()
        }
    }

    /// The error for `expected` where the next value is something else.
    func mismatch(_ expected: String) -> DBusDecodingError {
        DBusDecodingError(expected: expected, found: nextSignature)
    }

    // MARK: - Typed values

    /// Reads the next value as a `T`, looking through a variant (unless `T` is ``DBusValue``).
    ///
    /// - Throws: ``DBusDecodingError`` when the next value is not a `T`, or there is none.
    public mutating func decode<T: DBusDecodable>(_ type: T.Type = T.self) throws(DBusDecodingError) -> T {
        if T.self != DBusValue.self, try nextCode() == Code.variant {
            return try inContainer(Code.variant) { (inner: inout DBusDecoder) throws(DBusDecodingError) in try inner.decode(T.self) }
        }
        return try T(from: &self)
    }

    /// Reads the next value as a `T`, or returns `nil` when the values have ended.
    ///
    /// - Throws: ``DBusDecodingError`` when there is a next value and it is not a `T`.
    public mutating func decodeIfPresent<T: DBusDecodable>(_ type: T.Type = T.self) throws(DBusDecodingError) -> T? {
        try nextCode() == nil ? nil : try decode(T.self)
    }

    /// Passes over the next value, whatever it is.
    ///
    /// - Throws: ``DBusDecodingError`` when there is none.
    public mutating func skip() throws(DBusDecodingError) {
        switch source {
        case let .message(reader): try reader.skip()
        case let .values(reader): try reader.skip()
        }
    }

    // MARK: - Containers

    /// Reads an array (`a...`): `element` is called with the decoder on each element in turn, and
    /// must read it (or ``skip()`` it).
    ///
    /// - Throws: ``DBusDecodingError`` when the next value is not an array, or `element` throws.
    public mutating func decodeArray(_ element: (inout DBusDecoder) throws(DBusDecodingError) -> Void) throws(DBusDecodingError) {
        try lookThroughVariant(expecting: "an array") { (decoder: inout DBusDecoder) throws(DBusDecodingError) in
            try decoder.inContainer(Code.array) { (elements: inout DBusDecoder) throws(DBusDecodingError) in
                var index = 0
                while try elements.nextCode() != nil {
                    do throws(DBusDecodingError) {
                        try element(&elements)
                    } catch {
                        throw error.inside("[\(index)]")
                    }
                    index += 1
                }
            }
        }
    }

    /// Reads a dictionary (`a{K...}`): `entry` is called with each key, read as a `Key`, and the
    /// decoder on its value (a variant looked through by ``decode(_:)``). A value `entry` does not
    /// read is passed over.
    ///
    /// - Throws: ``DBusDecodingError`` when the next value is not a dictionary, a key is not a
    ///   `Key`, or `entry` throws.
    public mutating func decodeDictionary<Key: DBusDecodable>(
        keyedBy key: Key.Type, _ entry: (Key, inout DBusDecoder) throws(DBusDecodingError) -> Void
    ) throws(DBusDecodingError) {
        try lookThroughVariant(expecting: "a dictionary") { (decoder: inout DBusDecoder) throws(DBusDecodingError) in
            guard decoder.nextSignature?.hasPrefix("a{") == true else { throw decoder.mismatch("a dictionary (a{...})") }
            try decoder.inContainer(Code.array) { (entries: inout DBusDecoder) throws(DBusDecodingError) in
                while try entries.nextCode() != nil {
                    try entries.inContainer(Code.dictionaryEntry) { (pair: inout DBusDecoder) throws(DBusDecodingError) in
                        let key = try pair.decode(Key.self)
                        do throws(DBusDecodingError) {
                            try entry(key, &pair)
                        } catch {
                            throw error.inside("\(key)")
                        }
                        // A value the entry did not read.
                        if try pair.nextCode() != nil { try pair.skip() }
                    }
                }
            }
        }
    }

    /// Reads a structure (`(...)`): `fields` is called with the decoder on its first field, and
    /// reads them in order; fields it leaves are passed over.
    ///
    /// - Throws: ``DBusDecodingError`` when the next value is not a structure, or `fields` throws.
    public mutating func decodeStructure<T>(_ fields: (inout DBusDecoder) throws(DBusDecodingError) -> T) throws(DBusDecodingError) -> T {
        try lookThroughVariant(expecting: "a structure") { (decoder: inout DBusDecoder) throws(DBusDecodingError) in
            try decoder.inContainer(Code.structure, fields)
        }
    }

    /// Runs `body` on the value, inside the variant that holds it if it is one.
    private mutating func lookThroughVariant<T>(
        expecting expected: String, _ body: (inout DBusDecoder) throws(DBusDecodingError) -> T
    ) throws(DBusDecodingError) -> T {
        switch try nextCode() {
        case Code.variant?:
            return try inContainer(Code.variant) { (inner: inout DBusDecoder) throws(DBusDecodingError) in
                try inner.lookThroughVariant(expecting: expected, body)
            }
        case nil:
            throw mismatch(expected)
        default:
            return try body(&self)
        }
    }

    /// Enters the container of type `code` that is next, runs `body` in it, passes over what it
    /// left, and leaves the container.
    func inContainer<T>(_ code: UInt8, _ body: (inout DBusDecoder) throws(DBusDecodingError) -> T) throws(DBusDecodingError) -> T {
        switch source {
        case let .message(reader):
            try reader.enter(code)
            var inner = self
            let result = try body(&inner)
            try reader.exit()
            return result
        case let .values(reader):
            try reader.enter(code)
            var inner = self
            let result = try body(&inner)
            reader.exit()
            return result
        }
    }

    // MARK: - Basic values (for the conformances of Swift's types)

    /// A `s`, `o` or `g`.
    mutating func readString() throws(DBusDecodingError) -> String {
        switch source {
        case let .message(reader): try reader.readString()
        case let .values(reader): try reader.readString()
        }
    }

    /// A `b`.
    mutating func readBoolean() throws(DBusDecodingError) -> Bool {
        switch source {
        case let .message(reader): try reader.readBoolean()
        case let .values(reader): try reader.readBoolean()
        }
    }

    /// A `d`, or any integer as a double.
    mutating func readDouble() throws(DBusDecodingError) -> Double {
        switch source {
        case let .message(reader): try reader.readDouble()
        case let .values(reader): try reader.readDouble()
        }
    }

    /// An integer of any width whose value fits a `T`.
    mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws(DBusDecodingError) -> T {
        let value: Integer
        switch source {
        case let .message(reader): value = try reader.readInteger()
        case let .values(reader): value = try reader.readInteger()
        }
        let result: T? = switch value {
        case let .signed(number): T(exactly: number)
        case let .unsigned(number): T(exactly: number)
        }
        guard let result else {
            throw DBusDecodingError(expected: "an integer that fits \(T.self)", found: "\(value)")
        }
        return result
    }

    /// An `ay`, whole.
    mutating func readBytes() throws(DBusDecodingError) -> [UInt8] {
        switch source {
        case let .message(reader): try reader.readBytes()
        case let .values(reader): try reader.readBytes()
        }
    }

    /// An `h`: a descriptor the caller owns.
    mutating func readFileDescriptor() throws(DBusDecodingError) -> Int32 {
        switch source {
        case let .message(reader): try reader.readFileDescriptor()
        case let .values(reader): try reader.readFileDescriptor()
        }
    }

    /// An integer as read, before it is fitted to a Swift type.
    enum Integer: CustomStringConvertible {
        case signed(Int64)
        case unsigned(UInt64)

        var description: String {
            switch self {
            case let .signed(value): "the integer \(value)"
            case let .unsigned(value): "the integer \(value)"
            }
        }
    }

    /// The type codes of D-Bus.
    enum Code {
        static let byte = UInt8(ascii: "y")
        static let boolean = UInt8(ascii: "b")
        static let int16 = UInt8(ascii: "n")
        static let uint16 = UInt8(ascii: "q")
        static let int32 = UInt8(ascii: "i")
        static let uint32 = UInt8(ascii: "u")
        static let int64 = UInt8(ascii: "x")
        static let uint64 = UInt8(ascii: "t")
        static let double = UInt8(ascii: "d")
        static let string = UInt8(ascii: "s")
        static let objectPath = UInt8(ascii: "o")
        static let signature = UInt8(ascii: "g")
        static let unixFileDescriptor = UInt8(ascii: "h")
        static let array = UInt8(ascii: "a")
        static let structure = UInt8(ascii: "r")
        static let dictionaryEntry = UInt8(ascii: "e")
        static let variant = UInt8(ascii: "v")
    }
}

extension DBusValue {
    /// Reads this value as a `T`, as a message holding it would be read.
    ///
    /// - Throws: ``DBusDecodingError`` when it is not a `T`.
    public func decode<T: DBusDecodable>(_ type: T.Type = T.self) throws(DBusDecodingError) -> T {
        var decoder = DBusDecoder(values: [self])
        return try decoder.decode(T.self)
    }

    /// Reads `values` (a reply's, a signal's) in order as a `T`.
    ///
    /// - Throws: ``DBusDecodingError`` when they are not a `T`.
    public static func decode<T: DBusDecodable>(_ type: T.Type = T.self, from values: [DBusValue]) throws(DBusDecodingError) -> T {
        var decoder = DBusDecoder(values: values)
        return try T(from: &decoder)
    }
}
