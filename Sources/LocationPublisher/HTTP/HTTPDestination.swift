/// An HTTP server that takes positions by POST: OwnTracks' HTTP mode (the OwnTracks Recorder,
/// Dawarich, Home Assistant's OwnTracks webhook) or the OsmAnd protocol Traccar reads.
///
/// Each ``deliver(_:)`` is one POST, sent through libcurl on a thread of its own (no Swift
/// concurrency thread waits on the network), over a connection kept open between messages. Its
/// answer decides the message's fate:
///
/// | answer | result |
/// |---|---|
/// | 2xx | delivered |
/// | 401, 403 | ``PublishError/refusedCredentials(destination:reason:)`` |
/// | 408, 429, 5xx; no connection, a broken one, the timeout | ``PublishError/unreachable(destination:reason:)``: sent again later |
/// | a TLS failure | ``PublishError/tlsFailure(destination:problem:)``, naming the certificate problem as OpenSSL put it |
/// | any other status (3xx, 4xx) | ``PublishError/rejected(destination:reason:)``: the message is dropped |
///
/// 408 (request timeout) and 429 (too many requests) say "later", not "never": the message is
/// kept. A 3xx is not followed (a POST redirected becomes a GET on the way); the reason names
/// where it points, to give as the URL instead.
///
/// Why libcurl: it is the library FoundationNetworking's `URLSession` itself runs on, without the
/// rest of Foundation (and ICU) that `locate` does not link; async-http-client would bring
/// swift-nio and BoringSSL, minutes more of every clean build, for one request at a time.
///
/// ```swift
/// let recorder = HTTPDestination(
///     url: "https://owntracks.example/pub",
///     format: .ownTracks(user: "alice", device: "van", trackerID: "AV"),
///     login: HTTPLogin(user: "alice", password: password))
/// let traccar = HTTPDestination(url: "http://traccar.example:5055/", format: .osmAnd(deviceID: "van-7"))
/// ```
public struct HTTPDestination: PublishDestination {
    /// What a POST carries.
    public enum Format: Sendable, Hashable {
        /// OwnTracks' HTTP mode: the `_type: location` JSON as the body, and the user and device
        /// in `X-Limit-U` and `X-Limit-D` (the names the OwnTracks Recorder files it under).
        case ownTracks(user: String, device: String, trackerID: String?)
        /// Traccar's OsmAnd protocol: the position as query items (``OsmAndPayload``), no body.
        case osmAnd(deviceID: String)
    }

    /// The URL positions are posted to, as given.
    public let url: String
    public let format: Format
    private let login: HTTPLogin?
    private let tls: HTTPTLSFiles
    private let timeout: Duration
    private let client = CurlClient()

    /// `scheme://host[:port]/path`: the URL without a query or a user.
    public let name: String

    /// A destination posting to `url` (`http` or `https`) in `format`.
    ///
    /// - Parameters:
    ///   - url: where to post: `http` or `https`, the host, the port and the path.
    ///   - format: OwnTracks' HTTP mode or Traccar's OsmAnd protocol.
    ///   - login: the user and password for basic authentication, when the server asks for them.
    ///   - tls: the CA file and client certificate for `https`; the system's store by default.
    ///   - timeout: how long one POST may take, connection included; past it the message stays
    ///     queued (``PublishError/unreachable(destination:reason:)``).
    public init(
        url: String, format: Format, login: HTTPLogin? = nil, tls: HTTPTLSFiles = HTTPTLSFiles(), timeout: Duration = .seconds(30)
    ) {
        self.url = url
        self.format = format
        self.login = login
        self.tls = tls
        self.timeout = timeout
        name = Self.displayName(of: url)
    }

    /// Posts `message` and returns when the server answered 2xx. A region transition goes to an
    /// OwnTracks server as OwnTracks' apps post one (`_type: transition`, the same endpoint);
    /// Traccar's OsmAnd protocol has nothing to carry one, so it is taken as delivered, unsent.
    ///
    /// - Throws: ``PublishError`` as the table above says, or `CancellationError` when the task
    ///   is cancelled (the POST is abandoned at once).
    public func deliver(_ message: PositionMessage) async throws {
        if message.transition != nil, case .osmAnd = format { return }
        let response: HTTPResponse
        do {
            response = try await client.send(request(for: message))
        } catch let error as HTTPTransferError {
            throw publishError(error)
        }
        if let error = publishError(response) { throw error }
    }

    /// The POST that carries `message`.
    func request(for message: PositionMessage) -> HTTPRequest {
        var request = HTTPRequest(url: url, login: login, tls: tls, timeout: timeout, connectTimeout: min(timeout, .seconds(10)))
        switch format {
        case let .ownTracks(user, device, trackerID):
            request.headers = ["Content-Type: application/json", "X-Limit-U: \(user)", "X-Limit-D: \(device)"]
            request.body = OwnTracksPayload(trackerID: trackerID).render(message)
        case let .osmAnd(deviceID):
            let fragmentless = url.prefix { $0 != "#" }
            let separator = fragmentless.contains("?") ? "&" : "?"
            request.url = fragmentless + separator + OsmAndPayload(deviceID: deviceID).query(message)
        }
        return request
    }

    /// The error an answer means, or `nil` for a 2xx.
    func publishError(_ response: HTTPResponse) -> PublishError? {
        let reason = Self.reason(response)
        switch response.status {
        case 200..<300:
            return nil
        case 401, 403:
            return .refusedCredentials(destination: name, reason: reason)
        case 408, 429, 500..<600:
            return .unreachable(destination: name, reason: reason)
        default:
            return .rejected(destination: name, reason: reason)
        }
    }

    /// The error a failed exchange means.
    func publishError(_ error: HTTPTransferError) -> PublishError {
        switch error.kind {
        case .tls:
            .tlsFailure(destination: name, problem: error.detail.isEmpty ? error.name : error.detail)
        case .login:
            .refusedCredentials(destination: name, reason: error.description)
        case .connection, .timeout, .other:
            // .other (an option libcurl refused) keeps the message too: nothing is dropped for
            // what is not the message's fault.
            .unreachable(destination: name, reason: error.description)
        }
    }

    /// "HTTP 503", with where a redirection points, or the start of the body's text.
    private static func reason(_ response: HTTPResponse) -> String {
        var reason = "HTTP \(response.status)"
        if let redirect = response.redirect {
            reason += ", redirected to \(redirect): post to that URL instead"
        } else {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if !text.isEmpty { reason += ": \(text)" }
        }
        return reason
    }

    /// `url` without its query, fragment or user information.
    static func displayName(of url: String) -> String {
        let bare = url.prefix { $0 != "?" && $0 != "#" }
        guard let scheme = bare.firstRange(of: "://") else { return String(bare) }
        let rest = bare[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        return String(bare[..<scheme.upperBound]) + host + rest[authorityEnd...]
    }
}
