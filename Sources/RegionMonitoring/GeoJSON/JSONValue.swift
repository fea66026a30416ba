/// Any JSON value, as `JSONDecoder` reads it: the tree GeoJSON is read from, so that an error can
/// name the path of the member that is wrong.
enum JSONValue: Decodable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {  // not this type: the next
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {  // not this type: the next
            self = .number(value)
        } else if let value = try? container.decode(String.self) {  // not this type: the next
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {  // not this type: an object, or the error
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// What the value is, for a message: "a string", "an array".
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
