import ArgumentParser

/// Where `locate publish --to` points: an MQTT broker or an HTTP server, read from
/// `mqtt://[user@]host[:port]`, `mqtts://...`, `http(s)://[user@]host[:port][/path][?query]`.
///
/// A password in the URL is refused: it would show in `ps`, in the shell's history and in the
/// journal. It comes from `--password-file` or `LOCATE_PUBLISH_PASSWORD` instead.
struct PublishTarget: Equatable, Sendable {
    enum Scheme: String, CaseIterable, Sendable {
        case mqtt, mqtts, http, https

        var isMQTT: Bool { self == .mqtt || self == .mqtts }
        var isTLS: Bool { self == .mqtts || self == .https }
        /// The port when the URL names none (MQTT's IANA ports 1883 and 8883).
        var defaultPort: Int {
            switch self {
            case .mqtt: 1883
            case .mqtts: 8883
            case .http: 80
            case .https: 443
            }
        }
    }

    var scheme: Scheme
    /// The login's user, when the URL names one.
    var user: String?
    /// The host, without the brackets of an IPv6 literal.
    var host: String
    var port: Int
    /// The path and query of an HTTP URL ("/" at least); empty for MQTT.
    var path: String

    /// The URL without its user: what the destination posts to, and what messages name.
    var url: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(hostPart):\(port)\(path)"
    }

    /// The variable a password may come from instead of `--password-file`.
    static let passwordVariable = "LOCATE_PUBLISH_PASSWORD"

    /// Reads `text`; a `ValidationError` (exit 64) says what is wrong, naming the option.
    init(parsing text: String) throws(ValidationError) {
        let schemes = Scheme.allCases.map { "\($0.rawValue)://" }.joined(separator: ", ")
        guard let separator = text.firstRange(of: "://"),
              let scheme = Scheme(rawValue: text[..<separator.lowerBound].lowercased())
        else {
            throw ValidationError("--to '\(text)' is not a broker or server URL: it starts with one of \(schemes).")
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if userInfo.contains(":") {
                throw ValidationError(
                    "--to must not hold a password: it would show in ps, in logs and in the shell's history. "
                        + "Give it with --password-file FILE, or in the environment variable \(Self.passwordVariable).")
            }
            user = userInfo.isEmpty ? nil : String(userInfo)
            authority = authority[authority.index(after: at)...]
        } else {
            user = nil
        }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ValidationError("--to '\(text)': the IPv6 address has no closing ']'.")
            }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ValidationError("--to '\(text)': expected ':port' after the IPv6 address.") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw ValidationError("--to '\(text)' names no host.") }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw ValidationError("--to '\(text)': the port must be a number from 1 to 65535, not '\(portText)'.")
            }
            self.port = port
        } else {
            port = scheme.defaultPort
        }
        if scheme.isMQTT {
            guard path.isEmpty || path == "/" else {
                throw ValidationError(
                    "--to '\(text)': an MQTT URL has no path or query; the topic is owntracks/USER/DEVICE, from --user and --device.")
            }
            path = ""
        } else {
            if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
            if !path.hasPrefix("/") { path = "/" + path }
        }
        self.scheme = scheme
        self.path = path
    }
}

/// What `locate publish` sends: the payload, and so which schemes can carry it.
enum PublishFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// OwnTracks' `_type: location` JSON: to an MQTT topic, or posted in OwnTracks' HTTP mode.
    case owntracks
    /// Traccar's OsmAnd protocol: HTTP only.
    case osmand
    /// Home Assistant's MQTT discovery (a retained device_tracker config, then the attributes): MQTT only.
    case homeassistant

    static var allValueStrings: [String] { allCases.map(\.rawValue) }

    /// Refuses a format the scheme cannot carry.
    func check(_ scheme: PublishTarget.Scheme) throws(ValidationError) {
        switch (self, scheme.isMQTT) {
        case (.osmand, true):
            throw ValidationError("--format osmand is Traccar's HTTP protocol: give an http:// or https:// --to (Traccar listens on port 5055).")
        case (.homeassistant, false):
            throw ValidationError("--format homeassistant is Home Assistant's MQTT discovery: give an mqtt:// or mqtts:// --to (Home Assistant's broker).")
        default:
            return
        }
    }
}
