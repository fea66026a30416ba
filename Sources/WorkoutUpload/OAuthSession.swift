import Foundation
import GPSCore
import HTTPClient

/// An OAuth 2.0 client's tokens in use at one server: requests sent with the access token, the
/// token refreshed before it expires and once after a 401, and what the refresh gives back kept
/// in the credentials file before it is used (a server that rotates its refresh token, as Strava
/// does, takes the old one back for good).
///
/// What FitTrackee and Strava share: both take the refresh of RFC 6749 section 6 (a form with
/// `grant_type=refresh_token`, `refresh_token`, `client_id`, `client_secret`) and answer
/// `access_token`, `refresh_token`, and `expires_at` or `expires_in`.
final class OAuthSession: Sendable {
    /// The destination's name, in messages.
    let name: String
    /// Where a refresh token is traded for new tokens.
    let tokenURL: String
    /// The file of the credentials, rewritten at each refresh unless `keptFile` is given.
    let credentialsFile: String
    /// Where the tokens a refresh gives back are kept instead, when the credentials file cannot
    /// be written (a systemd credential is a read-only copy): read in its place once it exists.
    let keptFile: String?
    let timeout: Duration
    private let client: CurlClient
    private let credentials: Locked<OAuthCredentials>
    private let now: @Sendable () -> Date

    /// Reads the credentials in `credentialsFile`; throws ``UploadError/refusedCredentials(reason:)``
    /// when it cannot be read.
    init(
        name: String, tokenURL: String, credentialsFile: String, keptFile: String? = nil, client: CurlClient, timeout: Duration,
        now: @escaping @Sendable () -> Date
    ) throws(UploadError) {
        self.name = name
        self.tokenURL = tokenURL
        self.credentialsFile = credentialsFile
        self.keptFile = keptFile
        self.client = client
        self.timeout = timeout
        self.now = now
        // The tokens kept from a refresh are newer than the credential they came from (whose
        // refresh token a rotating server has taken back).
        let newest = keptFile.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil } ?? credentialsFile
        credentials = Locked(try OAuthCredentials.read(from: newest))
    }

    /// Sends `request` with the access token, refreshed first when it expires within a minute,
    /// and once more after a 401 with a fresh one. `sending`: the request carries the workout (a
    /// transport failure after its body went out leaves its outcome unknown).
    func authorized(_ request: HTTPRequest, sending: Bool) async throws(UploadError) -> HTTPResponse {
        if credentials.withLock({ $0.expires(within: 60, of: now()) }) { try await refresh() }
        var response = try await exchange(request, sending: sending)
        if response.status == 401, credentials.withLock({ $0.refreshToken }) != nil {
            try await refresh()
            response = try await exchange(request, sending: sending)
        }
        return response
    }

    /// Sends `request` with the access token as it stands, transport failures as
    /// ``UploadError/unreachable(reason:mayHaveArrived:)``.
    func exchange(_ start: HTTPRequest, sending: Bool) async throws(UploadError) -> HTTPResponse {
        var request = start
        request.headers.append("Authorization: Bearer \(credentials.withLock { $0.accessToken })")
        return try await Self.send(request, with: client, name: name, sending: sending)
    }

    /// `request` through `client`, a failure without an answer said as
    /// ``UploadError/unreachable(reason:mayHaveArrived:)``: arrived, maybe, when the body had
    /// gone out (libcurl says so) of a request that carries the workout.
    static func send(_ request: HTTPRequest, with client: CurlClient, name: String, sending: Bool) async throws(UploadError) -> HTTPResponse {
        do {
            return try await client.send(request)
        } catch let error as HTTPTransferError {
            throw .unreachable(reason: "\(name): \(error)", mayHaveArrived: sending && error.bodySent)
        } catch is CancellationError {
            throw .unreachable(reason: "\(name): interrupted before it answered", mayHaveArrived: sending)
        } catch {
            throw .unreachable(reason: "\(name): \(error)", mayHaveArrived: sending)
        }
    }

    /// Trades the refresh token for new tokens, and keeps them in the credentials file before
    /// they are used.
    func refresh() async throws(UploadError) {
        let current = credentials.withLock { $0 }
        guard let refreshToken = current.refreshToken else {
            throw .refusedCredentials(reason: "\(name): the access token has expired and \(credentialsFile) holds no refresh token: log in again")
        }
        let request = HTTPRequest(
            url: tokenURL, headers: ["Content-Type: application/x-www-form-urlencoded"],
            body: formEncoded([
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                ("client_id", current.clientID), ("client_secret", current.clientSecret),
            ]), timeout: timeout)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            throw .unreachable(reason: "\(name): refreshing the access token: \(error)", mayHaveArrived: false)
        }
        let body = ServerAnswer.json(response)
        guard (200..<300).contains(response.status), let body, let access = body["access_token"] as? String else {
            if response.status >= 500 { throw .unreachable(reason: "\(name): refreshing the access token: \(ServerAnswer.text(response))", mayHaveArrived: false) }
            throw .refusedCredentials(reason: "\(name) refused the refresh token (HTTP \(response.status): \(ServerAnswer.text(response))): log in again")
        }
        var renewed = current
        renewed.accessToken = access
        if let refresh = body["refresh_token"] as? String { renewed.refreshToken = refresh }
        if let expiresAt = body["expires_at"] as? Double {
            renewed.expiresAt = Date(timeIntervalSince1970: expiresAt)
        } else if let expiresIn = body["expires_in"] as? Double {
            renewed.expiresAt = now().addingTimeInterval(expiresIn)
        }
        let target = keptFile ?? credentialsFile
        do {
            try renewed.write(to: target)
        } catch {
            throw .refusedCredentials(reason: "\(name): the refreshed tokens cannot be kept in \(target): \(error)")
        }
        credentials.withLock { $0 = renewed }
    }
}
