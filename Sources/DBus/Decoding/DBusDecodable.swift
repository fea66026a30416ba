/// A type read from D-Bus values: a reply's values, a signal's arguments, a property.
///
/// A type reads what it is made of, in order, from the ``DBusDecoder`` it is given: a single
/// value (a `String`, an `[UInt8]`), or several in a row (a reply or a signal with several
/// values, or the fields of a structure read with ``DBusDecoder/decodeStructure(_:)``). Swift's
/// strings, integers, `Bool`, `Double`, arrays, dictionaries and ``DBusValue`` itself are
/// decodable already; a type with properties is decoded key by key (``DBusKeyedDecodable``).
///
/// Decoded from a message, values are read straight from it, on the connection's thread: an
/// `ay` is one copy of its bytes, and nothing is built for the values a type passes over.
///
/// ```swift
/// /// The arguments of GeoClue's `LocationUpdated` signal (`oo`).
/// struct LocationUpdated: DBusDecodable {
///     var old: String
///     var new: String
///
///     init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
///         old = try decoder.decode()
///         new = try decoder.decode()
///     }
/// }
/// ```
public protocol DBusDecodable: Sendable {
    /// Reads the value (or the values in a row) this type is made of from `decoder`.
    ///
    /// - Throws: ``DBusDecodingError`` when what is there is not of this type.
    init(from decoder: inout DBusDecoder) throws(DBusDecodingError)
}

/// A type read from a dictionary with string keys, key by key: an object's properties (`a{sv}`,
/// as `GetAll` and `PropertiesChanged` give them), or an object's interfaces (`a{sa{sv}}`, as
/// `GetManagedObjects` and `InterfacesAdded` give them).
///
/// Each key is handed to ``decode(key:from:)`` with the decoder on its value (a variant looked
/// through); a key the type does not read is passed over.
///
/// ```swift
/// /// What a program reads of BlueZ's `org.bluez.Battery1`.
/// struct BatteryProperties: DBusKeyedDecodable {
///     var percentage: Int?
///
///     init() {}
///
///     mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
///         if key == "Percentage" { percentage = try value.decode() }
///     }
/// }
/// ```
public protocol DBusKeyedDecodable: DBusDecodable {
    /// A value with nothing read yet: the keys a dictionary holds are then read into it.
    init()

    /// Reads the value of `key` from `value`, or leaves it (it is then passed over).
    ///
    /// - Throws: ``DBusDecodingError`` when the value is not of the type the key has.
    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError)
}

extension DBusKeyedDecodable {
    /// Reads a dictionary with string keys (`a{s...}`), key by key, into a new value.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        var result = Self()
        try decoder.decodeDictionary(keyedBy: String.self) { (key: String, value: inout DBusDecoder) throws(DBusDecodingError) in
            try result.decode(key: key, from: &value)
        }
        self = result
    }
}

/// Why D-Bus values could not be read as the type asked for: what was expected, what was there,
/// and where (the keys and indexes from the top of the reply or signal).
public struct DBusDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the type needed: a signature (`s`, `ay`, `a{sv}`), or a description of it.
    public var expected: String
    /// The signature of what was there, or `nil` for nothing (the values ended first).
    public var found: String?
    /// Where: dictionary keys and array indexes (`[3]`), from the top down.
    public var codingPath: [String]

    /// An error: `expected` was needed at `codingPath`, and `found` was there.
    public init(expected: String, found: String?, codingPath: [String] = []) {
        self.expected = expected
        self.found = found
        self.codingPath = codingPath
    }

    /// "expected d at Latitude, found s", "expected s, found nothing"; a path of several keys
    /// reads "at /org/bluez/hci0 > org.bluez.Adapter1 > Powered".
    public var description: String {
        let place = codingPath.isEmpty ? "" : " at " + codingPath.joined(separator: " > ")
        return "expected \(expected)\(place), found \(found ?? "nothing")"
    }

    /// The same error, one level further down: `key` first in its path.
    func inside(_ key: String) -> DBusDecodingError {
        var error = self
        error.codingPath.insert(key, at: 0)
        return error
    }
}

// MARK: - Swift's own types

extension String: DBusDecodable {
    /// Reads a string (`s`), an object path (`o`) or a signature (`g`).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readString()
    }
}

extension Bool: DBusDecodable {
    /// Reads a boolean (`b`).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readBoolean()
    }
}

extension Double: DBusDecodable {
    /// Reads a double (`d`), or an integer of any width as a double.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readDouble()
    }
}

extension UInt8: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits (a byte, `y`, as BlueZ's `Percentage` is).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(UInt8.self)
    }
}

extension Int16: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits (`n`, as BlueZ's `RSSI` is).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(Int16.self)
    }
}

extension UInt16: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits (`q`).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(UInt16.self)
    }
}

extension Int32: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits (`i`).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(Int32.self)
    }
}

extension UInt32: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits (`u`).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(UInt32.self)
    }
}

extension Int64: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits (`x`).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(Int64.self)
    }
}

extension UInt64: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits (`t`).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(UInt64.self)
    }
}

extension Int: DBusDecodable {
    /// Reads an integer of any D-Bus width whose value fits.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self = try decoder.readInteger(Int.self)
    }
}

extension Array: DBusDecodable where Element: DBusDecodable {
    /// Reads an array (`aX`) of elements of the type `Element` reads. An array of bytes (`ay`)
    /// read as `[UInt8]` is read whole, in one copy.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        if Element.self == UInt8.self {
            // The same type: no cast to look up at run time.
            self = unsafeBitCast(try decoder.readBytes(), to: [Element].self)
            return
        }
        var elements: [Element] = []
        try decoder.decodeArray { (element: inout DBusDecoder) throws(DBusDecodingError) in
            elements.append(try element.decode(Element.self))
        }
        self = elements
    }
}

extension Dictionary: DBusDecodable where Key: DBusDecodable, Value: DBusDecodable {
    /// Reads a dictionary (`a{KV}`): keys of the type `Key` reads, values of the type `Value`
    /// reads (variants looked through). A key given twice keeps its last value.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        var result: [Key: Value] = [:]
        try decoder.decodeDictionary(keyedBy: Key.self) { (key: Key, value: inout DBusDecoder) throws(DBusDecodingError) in
            result[key] = try value.decode(Value.self)
        }
        self = result
    }
}

extension DBusFileDescriptor: DBusDecodable {
    /// Reads a Unix file descriptor (`h`): a new descriptor of the same file, owned by the value.
    public convenience init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        self.init(owning: try decoder.readFileDescriptor())
    }
}
