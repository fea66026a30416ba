import Foundation
import HTTPClient
import Simulators

/// A local stand-in for a service the tests cannot reach (`Tests/Tools/strava-standin.py`,
/// `Tests/Tools/intervals-standin.py`: Python's http.server keeping the published contract), on
/// a free loopback port. A test sets its faults and reads what it holds through its control
/// endpoint (`/_standin/`), which is not the service's and counts in none of its limits.
package final class HTTPStandIn: Sendable {
    private let process: ChildProcess
    /// The port it listens on.
    package let port: Int
    /// `http://127.0.0.1:PORT`.
    package var url: String { "http://127.0.0.1:\(port)" }
    private let client = CurlClient()

    /// Strava's API v3: `polls` polls of an upload before it is processed, the rate limits
    /// (`15-minute,daily`), the OAuth client and its first tokens.
    package static func strava(
        polls: Int = 2, limit: String = "200,2000", readLimit: String = "100,1000", clientID: String = "12345",
        clientSecret: String = "stand-in-secret", accessToken: String = "initial-access-token", refreshToken: String = "initial-refresh-token"
    ) async throws -> HTTPStandIn {
        try await HTTPStandIn("strava-standin.py", [
            "--polls", "\(polls)", "--limit", limit, "--read-limit", readLimit, "--client-id", clientID, "--client-secret", clientSecret,
            "--access-token", accessToken, "--refresh-token", refreshToken,
        ])
    }

    /// intervals.icu's API: the athlete's API key and an OAuth access token it takes.
    package static func intervals(apiKey: String = "stand-in-api-key", bearer: String = "stand-in-oauth-token") async throws -> HTTPStandIn {
        try await HTTPStandIn("intervals-standin.py", ["--api-key", apiKey, "--bearer", bearer])
    }

    /// Starts `Tests/Tools/<script>` and returns once it listens.
    init(_ script: String, _ arguments: [String]) async throws {
        process = try ChildProcess("python3", [Repository.root.appendingPathComponent("Tests/Tools/\(script)").path] + arguments)
        guard let line = await process.waitForLine(where: { $0.hasPrefix("listening ") }),
              let port = Int(line.dropFirst("listening ".count))
        else {
            throw StandInError(message: "\(script) did not start: \(process.lines(.error).joined(separator: "\n"))")
        }
        self.port = port
    }

    deinit {
        process.terminate()
    }

    /// What it holds: `activities`, `upload_requests`, and the rest its header lists.
    package func state() async throws -> [String: Any] {
        try await control(HTTPRequest(method: "GET", url: url + "/_standin/state"))
    }

    /// Sets faults (its header lists them: `fail`, `drop_after_keeping`, `expire_access_token`,
    /// `limit`), and returns its state.
    @discardableResult
    package func faults(_ faults: [String: any Sendable]) async throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: faults)
        return try await control(HTTPRequest(url: url + "/_standin/faults", headers: ["Content-Type: application/json"], body: Array(body)))
    }

    /// The activities it holds.
    package func activities() async throws -> [[String: Any]] {
        try await state()["activities"] as? [[String: Any]] ?? []
    }

    /// A request to the service itself, outside the library: what a test checks the contract with.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await client.send(request)
    }

    private func control(_ request: HTTPRequest) async throws -> [String: Any] {
        let response = try await client.send(request)
        guard response.status == 200, let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw StandInError(message: "the stand-in's control answered \(response.status)")
        }
        return object
    }

    /// Stops it and waits for it to end.
    package func stop() async {
        process.terminate()
        _ = await process.waitUntilExit()
    }

    struct StandInError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
