/// One HTTP request: the method, the URL, the headers, the body, the login.
package struct HTTPRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `DELETE`.
    package var method: String
    /// The URL, with its query; never with a password in it.
    package var url: String
    /// Extra header lines, `Name: value`.
    package var headers: [String]
    /// The body, sent as it is (not with a `GET`).
    package var body: [UInt8]
    /// Basic authentication, when the server asks for a login.
    package var login: HTTPLogin?
    /// TLS files, for `https` URLs.
    package var tls: HTTPTLSFiles
    /// How long the whole exchange may take, connection included.
    package var timeout: Duration
    /// How long the connection (and the TLS handshake) may take.
    package var connectTimeout: Duration
    /// How much of the answer's body is kept; the rest is read and dropped.
    package var responseLimit: Int

    package init(
        method: String = "POST", url: String, headers: [String] = [], body: [UInt8] = [], login: HTTPLogin? = nil,
        tls: HTTPTLSFiles = HTTPTLSFiles(), timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
        responseLimit: Int = 64 * 1024
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.login = login
        self.tls = tls
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.responseLimit = responseLimit
    }
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
package struct HTTPResponse: Sendable {
    /// The HTTP status (200, 401, 503...).
    package var status: Int
    /// The body, up to the request's `responseLimit`.
    package var body: [UInt8]
    /// Where a redirection points, for a 3xx answer.
    package var redirect: String?
    /// The header fields of the final answer, in order, each name in lower case.
    package var headers: [(name: String, value: String)]

    package init(status: Int, body: [UInt8], redirect: String? = nil, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.body = body
        self.redirect = redirect
        self.headers = headers
    }

    /// The value of the last header field named `name` (any case), if there is one.
    package func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.last { $0.name == name }?.value
    }
}

/// Why an exchange ended without an HTTP answer, as libcurl said it: its code, its name for the
/// code, and the detail of its error buffer ("SSL certificate problem: self-signed certificate").
package struct HTTPTransferError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is, for the destination's decision.
    package enum Kind: Sendable, Equatable {
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

    package var kind: Kind
    /// libcurl's `CURLcode`.
    package var code: Int32
    /// libcurl's name for the code, from `curl_easy_strerror(3)`.
    package var name: String
    /// The error buffer's text, naming the particular problem (empty when libcurl wrote none).
    package var detail: String
    /// The URL, without its query.
    package var url: String
    /// Whether any of the request's body had gone out when it failed: the server may have acted
    /// on it (a timeout or a reset after the upload), so its outcome is unknown.
    package var bodySent: Bool

    package init(kind: Kind, code: Int32, name: String, detail: String, url: String, bodySent: Bool = false) {
        self.kind = kind
        self.code = code
        self.name = name
        self.detail = detail
        self.url = url
        self.bodySent = bodySent
    }

    package var description: String {
        let what = detail.isEmpty || detail == name ? name : "\(name): \(detail)"
        return "\(url): \(what) (libcurl error \(code))."
    }
}
