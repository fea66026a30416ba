import Foundation
import HTTPClient

/// The first tokens of an OAuth 2.0 client, from the authorization-code flow (RFC 6749 section
/// 4.1): the address the user opens to allow the client, then the code the server sends back to
/// the redirect URI, traded for the tokens an upload uses (``OAuthCredentials``).
///
/// FitTrackee takes PKCE (RFC 7636, S256; its config requires it): the user allows the client on
/// FitTrackee's page `/profile/apps/authorize`, and the code is traded at `POST /api/oauth/token`
/// with the verifier. Strava's page is `/oauth/authorize` (`approval_prompt=auto`, its scopes
/// comma-separated), the code traded at `POST /oauth/token`; it answers with the scopes the athlete
/// accepted, which must include `activity:write`.
///
/// ```swift
/// let login = OAuthLogin(service: .fitTrackee(url: "https://fittrackee.example.org"),
///                        clientID: id, clientSecret: secret, redirectURI: "http://127.0.0.1:8765/callback")
/// print("Open \(login.authorizationURL)")
/// // ... the browser comes back to the redirect URI, here `answer` (its path and query)
/// let credentials = try await login.credentials(fromRedirect: answer)
/// try credentials.write(to: "fittrackee.json")
/// ```
public struct OAuthLogin: Sendable {
    /// The server and how it takes the flow.
    public enum Service: Sendable, Hashable {
        /// FitTrackee 1.x at `url`, its scopes `workouts:read workouts:write profile:read`.
        case fitTrackee(url: String)
        /// Strava (`https://www.strava.com`, or a stand-in's base URL), its scopes
        /// `activity:write,activity:read_all`.
        case strava(url: String)
    }

    public let service: Service
    public let clientID: String
    /// Where the server sends the browser back with the code: it must be one the client was
    /// registered with (FitTrackee compares it whole; Strava its host).
    public let redirectURI: String
    private let clientSecret: String
    /// The value the redirect must carry back (a request of this login, not another's).
    let state: String
    /// PKCE's secret (RFC 7636 section 4.1), sent only with the code.
    let verifier: String

    /// A login of the client `clientID` at `service`, with fresh `state` and PKCE verifier.
    public init(service: Service, clientID: String, clientSecret: String, redirectURI: String) {
        self.init(service: service, clientID: clientID, clientSecret: clientSecret, redirectURI: redirectURI,
                  state: Self.randomToken(bytes: 16), verifier: Self.randomToken(bytes: 48))
    }

    init(service: Service, clientID: String, clientSecret: String, redirectURI: String, state: String, verifier: String) {
        self.service = service
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.state = state
        self.verifier = verifier
    }

    /// The scopes asked for, as the service writes them.
    public var scope: String {
        switch service {
        case .fitTrackee: "workouts:read workouts:write profile:read"
        case .strava: "activity:write,activity:read_all"
        }
    }

    /// The address the user opens in a browser to allow the client.
    public var authorizationURL: String {
        switch service {
        case let .fitTrackee(url):
            Self.trimmed(url) + "/profile/apps/authorize?" + Self.query([
                ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"), ("scope", scope),
                ("state", state), ("code_challenge", Self.challenge(of: verifier)), ("code_challenge_method", "S256"),
            ])
        case let .strava(url):
            Self.trimmed(url) + "/oauth/authorize?" + Self.query([
                ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"),
                ("approval_prompt", "auto"), ("scope", scope), ("state", state),
            ])
        }
    }

    /// PKCE's S256 challenge of `verifier`: BASE64URL(SHA-256(verifier)) without padding.
    static func challenge(of verifier: String) -> String {
        base64URL(SHA256.hash(Array(verifier.utf8)))
    }

    /// The credentials for the browser's return to the redirect URI, `redirect` being its request
    /// target (`/callback?code=...&state=...`) or the whole URL. Throws
    /// ``UploadError/refusedCredentials(reason:)`` when the user refused, the state is not this
    /// login's, the code is missing or refused, or Strava's athlete did not allow uploads;
    /// ``UploadError/unreachable(reason:mayHaveArrived:)`` when the server could not be reached.
    public func credentials(
        fromRedirect redirect: String, timeout: Duration = .seconds(30), now: @Sendable () -> Date = { Date() }
    ) async throws(UploadError) -> OAuthCredentials {
        let client = CurlClient()
        let fields = Self.queryFields(of: redirect)
        if let error = fields["error"] {
            throw .refusedCredentials(reason: "\(name) did not allow the client \(clientID) (\(error)\(fields["error_description"].map { ": " + $0 } ?? "")): log in again and allow it")
        }
        guard fields["state"] == state else {
            throw .refusedCredentials(reason: "the answer to \(redirectURI) is not this login's (its state differs): open the address this login printed, not an older one")
        }
        guard let code = fields["code"], !code.isEmpty else {
            throw .refusedCredentials(reason: "the answer to \(redirectURI) carries no code: \(redirect)")
        }
        if case .strava = service, let accepted = fields["scope"], !accepted.split(separator: ",").contains("activity:write") {
            throw .refusedCredentials(reason: "the athlete allowed \(accepted) but not activity:write, which uploads need: log in again and leave \"Upload your activities\" ticked")
        }
        var form = [("grant_type", "authorization_code"), ("code", code), ("client_id", clientID), ("client_secret", clientSecret)]
        if case .fitTrackee = service { form += [("code_verifier", verifier), ("redirect_uri", redirectURI)] }
        let request = HTTPRequest(
            url: tokenURL, headers: ["Content-Type: application/x-www-form-urlencoded"], body: formEncoded(form), timeout: timeout)
        let response = try await OAuthSession.send(request, with: client, name: name, sending: false)
        guard (200..<300).contains(response.status), let body = ServerAnswer.json(response),
              let access = body["access_token"] as? String, !access.isEmpty
        else {
            if response.status >= 500 { throw .unreachable(reason: "\(name): trading the code for tokens: \(ServerAnswer.text(response))", mayHaveArrived: false) }
            throw .refusedCredentials(reason: "\(name) refused the code (HTTP \(response.status): \(ServerAnswer.text(response))): log in again (a code is good once, for a few minutes)")
        }
        var expiresAt: Date?
        if let at = body["expires_at"] as? Double {
            expiresAt = Date(timeIntervalSince1970: at)
        } else if let seconds = body["expires_in"] as? Double {
            expiresAt = now().addingTimeInterval(seconds)
        }
        return OAuthCredentials(
            clientID: clientID, clientSecret: clientSecret, accessToken: access, refreshToken: body["refresh_token"] as? String,
            expiresAt: expiresAt)
    }

    /// The service's name in messages.
    private var name: String {
        switch service {
        case let .fitTrackee(url): "FitTrackee at \(Self.trimmed(url))"
        case .strava: "Strava"
        }
    }

    private var tokenURL: String {
        switch service {
        case let .fitTrackee(url): Self.trimmed(url) + "/api/oauth/token"
        case let .strava(url): Self.trimmed(url) + "/oauth/token"
        }
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    private static func query(_ fields: [(String, String)]) -> String {
        String(decoding: formEncoded(fields), as: UTF8.self)
    }

    /// The fields of `target`'s query (`a=b&c=d`, percent-decoded, `+` a space).
    static func queryFields(of target: String) -> [String: String] {
        guard let mark = target.firstIndex(of: "?") else { return [:] }
        var fields: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: "+", with: " ") }
            guard let name = parts.first?.removingPercentEncoding else { continue }
            fields[name] = parts.count > 1 ? parts[1].removingPercentEncoding ?? parts[1] : ""
        }
        return fields
    }

    /// `bytes` random bytes (the system's generator, from the kernel) as unpadded base64url.
    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// SHA-256 (FIPS 180-4), for PKCE's challenge: a few dozen bytes once a login, so a plain
/// implementation rather than a cryptography library linked for it.
enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) * 8
        padded += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        var w = [UInt32](repeating: 0, count: 64)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for t in 0..<16 {
                let i = block + 4 * t
                w[t] = UInt32(padded[i]) << 24 | UInt32(padded[i + 1]) << 16 | UInt32(padded[i + 2]) << 8 | UInt32(padded[i + 3])
            }
            for t in 16..<64 {
                let s0 = rotate(w[t - 15], 7) ^ rotate(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotate(w[t - 2], 17) ^ rotate(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for t in 0..<64 {
                let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = hh &+ s1 &+ choice &+ k[t] &+ w[t]
                let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = s0 &+ majority
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ temp2)
            }
            for (index, value) in [a, b, c, d, e, f, g, hh].enumerated() { h[index] = h[index] &+ value }
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}
