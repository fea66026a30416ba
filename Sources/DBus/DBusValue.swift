/// A value of any D-Bus type, as it travels in a message: what a call takes and returns, what a
/// signal carries, what a property holds.
///
/// Each value knows its D-Bus type signature (``signature``); a container whose elements could be
/// of any type (an empty array) names its element's signature itself.
///
/// ```swift
/// let level: DBusValue = .uint32(8)                                    // "u"
/// let path: DBusValue = .objectPath("/org/freedesktop/GeoClue2/Agent") // "o"
/// let options = DBusValue.variantDictionary(["enable": .boolean(true)]) // "a{sv}"
/// ```
public enum DBusValue: Sendable, Hashable {
    /// `y`, an unsigned byte.
    case byte(UInt8)
    /// `b`, a boolean.
    case boolean(Bool)
    /// `n`, a signed 16-bit integer.
    case int16(Int16)
    /// `q`, an unsigned 16-bit integer.
    case uint16(UInt16)
    /// `i`, a signed 32-bit integer.
    case int32(Int32)
    /// `u`, an unsigned 32-bit integer.
    case uint32(UInt32)
    /// `x`, a signed 64-bit integer.
    case int64(Int64)
    /// `t`, an unsigned 64-bit integer.
    case uint64(UInt64)
    /// `d`, an IEEE 754 double.
    case double(Double)
    /// `s`, a UTF-8 string.
    case string(String)
    /// `o`, an object path such as `/org/freedesktop/GeoClue2/Client/1`.
    case objectPath(String)
    /// `g`, a type signature such as `a{sv}`.
    case signature(String)
    /// `h`, a Unix file descriptor, owned: a received one is closed when the last value holding it
    /// goes, unless taken (``DBusFileDescriptor/take()``); one sent is duplicated by the bus
    /// library, and stays the sender's.
    case unixFileDescriptor(DBusFileDescriptor)
    /// `ay`, an array of bytes, held whole (a Bluetooth characteristic's value): what a message's
    /// `ay` is read as. The same D-Bus value as `.array(element: "y", ...)` of ``byte(_:)``s,
    /// and equal to it.
    case bytes([UInt8])
    /// `aX`, an array whose elements have the signature `element` (`X`).
    indirect case array(element: String, [DBusValue])
    /// `a{KV}`, a dictionary: keys of the basic type `key`, values of the type `value`, in order.
    indirect case dictionary(key: String, value: String, [DBusDictionaryEntry])
    /// `(...)`, a structure of its fields, in order.
    indirect case structure([DBusValue])
    /// `v`, a value together with its own type.
    indirect case variant(DBusValue)

    /// The value's D-Bus type signature: `u`, `as`, `a{sv}`, `(iis)`...
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFileDescriptor: "h"
        case .bytes: "ay"
        case let .array(element, _): "a" + element
        case let .dictionary(key, value, _): "a{" + key + value + "}"
        case let .structure(fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// The signature of several values in a row, as a message's body has.
    public static func signature(of values: [DBusValue]) -> String {
        values.map(\.signature).joined()
    }

    /// A dictionary of strings to variants (`a{sv}`), the usual shape of D-Bus options and of
    /// `GetAll`'s answer, with its keys in order.
    public static func variantDictionary(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: "s", value: "v",
            values.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value)) })
    }

    /// An array of strings (`as`).
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(element: "s", strings.map(DBusValue.string))
    }
}

/// One entry of a ``DBusValue/dictionary(key:value:_:)``.
public struct DBusDictionaryEntry: Sendable, Hashable {
    /// The key: a value of a basic type (not a container, not a variant).
    public var key: DBusValue
    /// The value.
    public var value: DBusValue

    /// An entry of `key` and `value`.
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Equality

extension DBusValue {
    /// Whether two values are the same D-Bus value: of one type, with equal contents. An array of
    /// bytes is one value in either form (``bytes(_:)``, or `.array(element: "y", ...)`).
    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case let (.byte(a), .byte(b)): a == b
        case let (.boolean(a), .boolean(b)): a == b
        case let (.int16(a), .int16(b)): a == b
        case let (.uint16(a), .uint16(b)): a == b
        case let (.int32(a), .int32(b)): a == b
        case let (.uint32(a), .uint32(b)): a == b
        case let (.int64(a), .int64(b)): a == b
        case let (.uint64(a), .uint64(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.objectPath(a), .objectPath(b)): a == b
        case let (.signature(a), .signature(b)): a == b
        case let (.unixFileDescriptor(a), .unixFileDescriptor(b)): a == b
        case let (.bytes(a), .bytes(b)): a == b
        case (.bytes, .array("y", _)), (.array("y", _), .bytes): lhs.bytesValue != nil && lhs.bytesValue == rhs.bytesValue
        case let (.array(aElement, a), .array(bElement, b)): aElement == bElement && a == b
        case let (.dictionary(aKey, aValue, a), .dictionary(bKey, bValue, b)): aKey == bKey && aValue == bValue && a == b
        case let (.structure(a), .structure(b)): a == b
        case let (.variant(a), .variant(b)): a == b
        default: false
        }
    }

    /// Hashes the value as ``==(_:_:)`` compares it: an array of bytes alike in either form.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(signature)
        switch self {
        case let .byte(value): hasher.combine(value)
        case let .boolean(value): hasher.combine(value)
        case let .int16(value): hasher.combine(value)
        case let .uint16(value): hasher.combine(value)
        case let .int32(value): hasher.combine(value)
        case let .uint32(value): hasher.combine(value)
        case let .int64(value): hasher.combine(value)
        case let .uint64(value): hasher.combine(value)
        case let .double(value): hasher.combine(value)
        case let .string(value), let .objectPath(value), let .signature(value): hasher.combine(value)
        case let .unixFileDescriptor(value): hasher.combine(value)
        case let .bytes(value): hasher.combine(value)
        case let .array(_, elements):
            if let bytes = bytesValue { hasher.combine(bytes) } else { hasher.combine(elements) }
        case let .dictionary(_, _, entries): hasher.combine(entries)
        case let .structure(fields): hasher.combine(fields)
        case let .variant(inner): hasher.combine(inner)
        }
    }
}

// MARK: - Validity

extension DBusValue {
    /// Why the value cannot be sent, or `nil` when it can: an array or a dictionary holding a value
    /// of another type than it declares, a key that is not of a basic type, an object path that is
    /// not one (`/`, or `/` and parts of letters, digits and `_` separated by single `/`).
    public var invalidity: String? {
        switch self {
        case let .objectPath(path):
            return Self.isObjectPath(path) ? nil : "\"\(path)\" is not an object path"
        case let .array(element, elements):
            if let stray = elements.first(where: { $0.signature != element }) {
                return "an array of \(element) holds \(stray) (\(stray.signature))"
            }
            return elements.lazy.compactMap(\.invalidity).first
        case let .dictionary(key, value, entries):
            guard key.count == 1, "ybnqiuxtdsogh".contains(key) else { return "a dictionary's keys must be of a basic type, not \(key)" }
            if let stray = entries.first(where: { $0.key.signature != key || $0.value.signature != value }) {
                return "a dictionary of \(key) to \(value) holds \(stray.key): \(stray.value)"
            }
            return entries.lazy.compactMap { $0.key.invalidity ?? $0.value.invalidity }.first
        case let .structure(fields):
            return fields.isEmpty ? "a structure must have a field" : fields.lazy.compactMap(\.invalidity).first
        case let .variant(inner):
            return inner.invalidity
        default:
            return nil
        }
    }

    private static func isObjectPath(_ path: String) -> Bool {
        guard path.first == "/" else { return false }
        if path == "/" { return true }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }
}

// MARK: - Reading values

extension DBusValue {
    /// The value inside a variant, however deeply wrapped; the value itself otherwise.
    public var unwrapped: DBusValue {
        if case let .variant(inner) = self { return inner.unwrapped }
        return self
    }

    /// The string of a `s`, `o` or `g` value (inside variants too).
    public var stringValue: String? {
        switch unwrapped {
        case let .string(text), let .objectPath(text), let .signature(text): text
        default: nil
        }
    }

    /// The number of any numeric value as a `Double` (inside variants too).
    public var doubleValue: Double? {
        switch unwrapped {
        case let .double(value): value
        case let .byte(value): Double(value)
        case let .int16(value): Double(value)
        case let .uint16(value): Double(value)
        case let .int32(value): Double(value)
        case let .uint32(value): Double(value)
        case let .int64(value): Double(value)
        case let .uint64(value): Double(value)
        default: nil
        }
    }

    /// The number of an integer value that fits an `Int` (inside variants too).
    public var intValue: Int? {
        switch unwrapped {
        case let .byte(value): Int(value)
        case let .int16(value): Int(value)
        case let .uint16(value): Int(value)
        case let .int32(value): Int(value)
        case let .uint32(value): Int(value)
        case let .int64(value): Int(exactly: value)
        case let .uint64(value): Int(exactly: value)
        default: nil
        }
    }

    /// The value of a boolean (inside variants too).
    public var boolValue: Bool? {
        if case let .boolean(value) = unwrapped { return value }
        return nil
    }

    /// The elements of an array (inside variants too); those of ``bytes(_:)`` as ``byte(_:)``s.
    public var arrayValue: [DBusValue]? {
        switch unwrapped {
        case let .array(_, elements): elements
        case let .bytes(bytes): bytes.map(DBusValue.byte)
        default: nil
        }
    }

    /// The bytes of an array of bytes (`ay`), either form (inside variants too).
    public var bytesValue: [UInt8]? {
        switch unwrapped {
        case let .bytes(bytes):
            return bytes
        case let .array("y", elements):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(elements.count)
            for case let .byte(byte) in elements { bytes.append(byte) }
            return bytes.count == elements.count ? bytes : nil
        default:
            return nil
        }
    }

    /// The fields of a structure (inside variants too).
    public var structureValue: [DBusValue]? {
        if case let .structure(fields) = unwrapped { return fields }
        return nil
    }

    /// A dictionary with string keys (`a{sv}`, `a{ss}`...) as a Swift dictionary, variants
    /// unwrapped (inside variants too).
    public var stringKeyedValue: [String: DBusValue]? {
        guard case let .dictionary(_, _, entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            result[key] = entry.value.unwrapped
        }
        return result
    }
}

extension DBusValue: ExpressibleByStringLiteral {
    /// A string literal is a `s` value.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension DBusValue: ExpressibleByBooleanLiteral {
    /// A boolean literal is a `b` value.
    public init(booleanLiteral value: Bool) {
        self = .boolean(value)
    }
}

extension DBusValue: ExpressibleByFloatLiteral {
    /// A floating-point literal is a `d` value.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension DBusValue: CustomStringConvertible {
    /// The value as `dbus-send` and `busctl` print it, roughly: `uint32 8`, `"text"`, `[1, 2]`.
    public var description: String {
        switch self {
        case let .byte(value): "byte \(value)"
        case let .boolean(value): "\(value)"
        case let .int16(value): "int16 \(value)"
        case let .uint16(value): "uint16 \(value)"
        case let .int32(value): "int32 \(value)"
        case let .uint32(value): "uint32 \(value)"
        case let .int64(value): "int64 \(value)"
        case let .uint64(value): "uint64 \(value)"
        case let .double(value): "double \(value)"
        case let .string(value): "\"\(value)\""
        case let .objectPath(value): "object path \(value)"
        case let .signature(value): "signature \(value)"
        case let .unixFileDescriptor(value): value.description
        case let .bytes(bytes): "[" + bytes.map { "byte \($0)" }.joined(separator: ", ") + "]"
        case let .array(_, elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case let .dictionary(_, _, entries): "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case let .structure(fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case let .variant(inner): "<\(inner)>"
        }
    }
}
