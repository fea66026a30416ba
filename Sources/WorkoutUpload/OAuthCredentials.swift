import Foundation

/// An OAuth 2.0 client's credentials and tokens for one server, kept in a file of their own,
/// private (0600), beside the store: what a refresh gives back is written there at once (a
/// server that rotates its refresh token takes the old one back for good).
///
/// The file is JSON: `client_id`, `client_secret`, `access_token`, `refresh_token`, and
/// `expires_at` (seconds since 1970, or absent). Tokens are never printed: the description
/// names the file and the client alone.
public struct OAuthCredentials: Sendable, Hashable, Codable, CustomStringConvertible {
    public var clientID: String
    public var clientSecret: String
    public var accessToken: String
    public var refreshToken: String?
    public var expiresAt: Date?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
    }

    public init(clientID: String, clientSecret: String, accessToken: String, refreshToken: String?, expiresAt: Date?) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    public var description: String { "OAuth client \(clientID) (tokens hidden)" }

    /// Whether the access token expires within `margin` of `now` (or has).
    public func expires(within margin: TimeInterval, of now: Date) -> Bool {
        expiresAt.map { $0.timeIntervalSince(now) < margin } ?? false
    }

    /// Reads the credentials at `path`. Throws ``UploadError/refusedCredentials(reason:)`` naming
    /// the file when it cannot be read or is not such a file.
    public static func read(from path: String) throws(UploadError) -> OAuthCredentials {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .refusedCredentials(reason: "cannot read the credentials file \(path): \((error as NSError).localizedDescription)")
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode(OAuthCredentials.self, from: data)
        } catch {
            throw .refusedCredentials(reason: "the credentials file \(path) is not one: it needs client_id, client_secret and access_token (JSON)")
        }
    }

    /// Writes the credentials to `path`, private (0600) whatever the umask, replacing the file
    /// at once (a temporary file renamed over it), so that a crash leaves the old or the new.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(self)
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary]) }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
