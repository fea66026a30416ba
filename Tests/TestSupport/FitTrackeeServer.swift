import Foundation

/// The real FitTrackee 1.3.6 that `scripts/fittrackee-server start DIR` runs on PostgreSQL
/// (scripts/test starts one beside the build and names its `server.env` in `FITTRACKEE_ENV`).
///
/// Without `FITTRACKEE_ENV` the tests that need it skip, saying so, unless `CI=true`: there a
/// missing server is a failure (`required`), since a run where they all skipped would pass.
public struct FitTrackeeServer: Sendable {
    /// `server.env`, one `KEY=value` a line (split at the first `=`).
    public let values: [String: String]

    /// The server the run started, if there is one.
    public static let running: FitTrackeeServer? = {
        guard let path = ProcessInfo.processInfo.environment["FITTRACKEE_ENV"], !path.isEmpty,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }  // nil: no server, said by `missing`
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values["FITTRACKEE_URL"] == nil ? nil : FitTrackeeServer(values: values)
    }()

    /// Whether a missing server fails the test (CI) rather than skipping it.
    public static var required: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Why a test that needs the server did not run.
    public static let missing = "no FitTrackee server: FITTRACKEE_ENV names none (scripts/test starts one; scripts/fittrackee-server start DIR starts one by hand)"

    public subscript(_ key: String) -> String { values["FITTRACKEE_" + key] ?? "" }

    /// `http://127.0.0.1:PORT`.
    public var url: String { self["URL"] }
    /// `127.0.0.1:PORT`, for a `fittrackee+http://` destination.
    public var authority: String { String(url.split(separator: "://", maxSplits: 1).last ?? "") }

    /// The id of the sport labelled `label`, as `GET /api/sports` answered when the server started.
    public func sportID(_ label: String) -> Int? {
        for pair in self["SPORTS"].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[1] == label { return Int(parts[0]) }
        }
        return nil
    }

    /// The OAuth credentials file the library reads (client, tokens, `expires_at`), written to
    /// `path` (0600) with the shared pair, or with a pair of its own from `scripts/fittrackee-server
    /// token` (`ownPair`; `expired`: its access token already refused). A test that refreshes takes
    /// its own: a refresh revokes the pair it refreshes. `expiresAt` is what the file says of it.
    public func writeCredentials(to path: String, ownPair: Bool = false, expired: Bool = false, expiresAt: Date? = nil) async throws {
        var access = self["ACCESS_TOKEN"]
        var refresh = self["REFRESH_TOKEN"]
        if ownPair || expired {
            let script = Repository.root.appendingPathComponent("scripts/fittrackee-server").path
            let result = try await Command.run(script, ["token", self["DIR"]] + (expired ? ["--expired"] : []))
            guard result.status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "fittrackee-server token: \(result.error)"]) }
            for line in result.outputText.split(separator: "\n") {
                if line.hasPrefix("FITTRACKEE_ACCESS_TOKEN=") { access = String(line.dropFirst("FITTRACKEE_ACCESS_TOKEN=".count)) }
                if line.hasPrefix("FITTRACKEE_REFRESH_TOKEN=") { refresh = String(line.dropFirst("FITTRACKEE_REFRESH_TOKEN=".count)) }
            }
        }
        var object: [String: Any] = [
            "client_id": self["CLIENT_ID"], "client_secret": self["CLIENT_SECRET"], "access_token": access, "refresh_token": refresh,
        ]
        if let expiresAt { object["expires_at"] = expiresAt.timeIntervalSince1970 }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
