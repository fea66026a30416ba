/// Where gpsd is: `[server[:port[:device]]]`, the positional argument gpsd's own clients
/// (`cgps`, `gpspipe`) take.
///
/// ```swift
/// try GPSDAddress(parsing: "10.0.0.5:2948:/dev/ttyUSB0")   // host, port, device
/// try GPSDAddress(parsing: "[::1]:2947")                    // IPv6 in brackets
/// try GPSDAddress(parsing: "")                              // localhost:2947, every device
/// ```
public struct GPSDAddress: Sendable, Hashable, CustomStringConvertible {
    /// gpsd's well-known port.
    public static let defaultPort: UInt16 = 2947

    public var host: String
    public var port: UInt16
    /// One device to watch, or `nil` for all.
    public var device: String?

    public init(host: String = "localhost", port: UInt16 = defaultPort, device: String? = nil) {
        self.host = host
        self.port = port
        self.device = device
    }

    /// An error in an address: what was wrong with which text.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "'\(text)' is not a gpsd address ([server[:port[:device]]]): \(reason)" }
    }

    /// Parses `[server[:port[:device]]]`. An empty server means localhost, an empty port 2947;
    /// the device is everything after the second colon (device paths may hold colons).
    ///
    /// - Throws: ``ParseError`` when the port is not a number from 1 to 65535 or a bracket is unclosed.
    public init(parsing text: String) throws(ParseError) {
        var rest = Substring(text)
        var host = ""
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw ParseError(text: text, reason: "the IPv6 address has no closing ']'")
            }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else {
                    throw ParseError(text: text, reason: "expected ':' after ']'")
                }
                rest = rest.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        } else {
            host = String(rest)
            rest = ""
        }
        var portText = rest
        var device: String?
        if let colon = rest.firstIndex(of: ":") {
            portText = rest[..<colon]
            let deviceText = rest[rest.index(after: colon)...]
            device = deviceText.isEmpty ? nil : String(deviceText)
        }
        var port = Self.defaultPort
        if !portText.isEmpty {
            guard let number = UInt16(portText), number > 0 else {
                throw ParseError(text: text, reason: "the port '\(portText)' is not a number from 1 to 65535")
            }
            port = number
        }
        self.init(host: host.isEmpty ? "localhost" : host, port: port, device: device)
    }

    /// `host:port` or `host:port:device`, with brackets around an IPv6 host.
    public var description: String {
        let endpoint = LocationError.endpoint(host, port)
        return device.map { "\(endpoint):\($0)" } ?? endpoint
    }
}
