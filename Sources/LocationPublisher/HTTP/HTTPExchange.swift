/// One HTTP POST, as ``HTTPDestination`` sends it: the URL, the headers, the body, the login.
struct HTTPRequest: Sendable {
    /// The URL, with its query; never with a password in it.
    var url: String
    /// Extra header lines, `Name: value`.
    var headers: [String] = []
    /// The body, sent as it is.
    var body: [UInt8] = []
    /// Basic authentication, when the server asks for a login.
    var login: HTTPLogin?
    /// TLS files, for `https` URLs.
    var tls = HTTPTLSFiles()
    /// How long the whole exchange may take, connection included.
    var timeout: Duration = .seconds(30)
    /// How long the connection (and the TLS handshake) may take.
    var connectTimeout: Duration = .seconds(10)
}

/// A user and password for HTTP basic authentication. The password is never printed: the
/// description shows the user alone.
public struct HTTPLogin: Sendable, CustomStringConvertible {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "\(user) (password hidden)" }
}

/// The files TLS uses, each `nil` for the system's default: the certificate authorities to
/// trust, and a client certificate with its key for a server that asks for one.
public struct HTTPTLSFiles: Sendable, Equatable {
    /// A PEM file of the certificate authorities to trust instead of the system's.
    public var caFile: String?
    /// A PEM client certificate.
    public var certificateFile: String?
    /// The PEM private key of ``certificateFile``.
    public var keyFile: String?

    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// What the server answered.
struct HTTPResponse: Sendable {
    /// The HTTP status (200, 401, 503...).
    var status: Int
    /// The first 64 KiB of the body.
    var body: [UInt8]
    /// Where a redirection points, for a 3xx answer.
    var redirect: String?
}

/// Why an exchange ended without an HTTP answer, as libcurl said it: its code, its name for the
/// code, and the detail of its error buffer ("SSL certificate problem: self-signed certificate").
struct HTTPTransferError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is, for the destination's decision.
    enum Kind: Sendable, Equatable {
        /// The server could not be reached, or the connection broke: trying again may work.
        case connection
        /// The exchange took longer than its timeout.
        case timeout
        /// TLS failed: the certificate, its authority, or the handshake.
        case tls
        /// The server refused the login at the protocol level.
        case login
        /// Something that trying again will not mend (a malformed URL, an unsupported scheme).
        case other
    }

    var kind: Kind
    /// libcurl's `CURLcode`.
    var code: Int32
    /// libcurl's name for the code, from `curl_easy_strerror(3)`.
    var name: String
    /// The error buffer's text, naming the particular problem (empty when libcurl wrote none).
    var detail: String
    /// The URL, without its query.
    var url: String

    var description: String {
        let what = detail.isEmpty || detail == name ? name : "\(name): \(detail)"
        return "\(url): \(what) (libcurl error \(code))."
    }
}
