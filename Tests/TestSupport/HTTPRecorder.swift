import Foundation
import Simulators

/// The tests' HTTP server (`Tests/Tools/http-recorder.py`, Python's http.server: a server we did
/// not write), on a free loopback port: it answers as told (500 for the first N requests, a list
/// of statuses, or holds requests unanswered) and reports each request it received as a line, so a
/// test awaits the request itself instead of sleeping.
package final class HTTPRecorder: Sendable {
    /// One request as the server received it.
    package struct Request: Sendable, Decodable {
        /// 1 for the first request, and so on.
        package var n: Int
        package var method: String
        package var path: String
        /// The query, as sent (percent-encoded).
        package var query: String
        /// The headers, names in lower case.
        package var headers: [String: String]
        package var body: String
        /// What the server answered; -1 for a request held without an answer.
        package var status: Int
        /// A forwarded request whose answer was kept from the client (`holdAnswerTo`).
        package var held: Bool?

        /// The query's items, decoded.
        package var queryItems: [String: String] {
            Dictionary(
                (URLComponents(string: "?" + query)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                uniquingKeysWith: { first, _ in first })
        }
    }

    private let process: ChildProcess
    /// The port it listens on.
    package let port: Int

    /// `http://127.0.0.1:PORT` (`https` with `tls`).
    package var url: String { "\(scheme)://127.0.0.1:\(port)" }
    private let scheme: String

    /// Starts the server and returns once it listens.
    ///
    /// - Parameters:
    ///   - fail: answer 500 to this many requests (after `statuses`), then 200.
    ///   - statuses: the statuses of the first requests, in turn.
    ///   - hold: leave this many requests (the first ones) without an answer.
    ///   - tls: a PEM certificate and key to serve HTTPS with.
    ///   - failUntilReleased: answer 500 until ``release()``.
    ///   - holdAfterRelease: with `failUntilReleased`, answer this many requests after the
    ///     release, then hold every later one unanswered (what the client delivered stays put).
    ///   - port: the port to listen on (that of a server stopped before, to be the same
    ///     destination); a free one by default.
    ///   - forward: a server to pass every request on to, its answers coming back (the options
    ///     above then do nothing).
    ///   - holdAnswerTo: with `forward`, the first request of this method and path is passed on
    ///     and its answer kept from the client: the server did the work, the client never hears.
    package init(
        port: Int? = nil, fail: Int = 0, statuses: [Int] = [], hold: Int = 0, failUntilReleased: Bool = false, holdAfterRelease: Int? = nil,
        tls: (certificate: String, key: String)? = nil, forward: String? = nil, holdAnswerTo: (method: String, path: String)? = nil
    ) async throws {
        var arguments = [Repository.root.appendingPathComponent("Tests/Tools/http-recorder.py").path]
        if let port { arguments += ["--port", "\(port)"] }
        if fail > 0 { arguments += ["--fail", "\(fail)"] }
        if !statuses.isEmpty { arguments += ["--statuses", statuses.map(String.init).joined(separator: ",")] }
        if hold > 0 { arguments += ["--hold", "\(hold)"] }
        if failUntilReleased { arguments.append("--fail-until-released") }
        if let holdAfterRelease { arguments += ["--hold-after-release", "\(holdAfterRelease)"] }
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        if let forward { arguments += ["--forward", forward] }
        if let holdAnswerTo { arguments += ["--hold-answer-to", holdAnswerTo.method, holdAnswerTo.path] }
        process = try ChildProcess("python3", arguments)
        scheme = tls == nil ? "http" : "https"
        guard let line = await process.waitForLine(where: { $0.hasPrefix("listening ") }),
              let port = Int(line.dropFirst("listening ".count))
        else {
            throw RecorderError(message: "the HTTP recorder did not start: \(process.lines(.error).joined(separator: "\n"))")
        }
        self.port = port
    }

    deinit {
        process.terminate()
    }

    /// The `n`th request (1 is the first), once it has arrived; `nil` if the server ended first.
    package func request(_ n: Int) async -> Request? {
        let line = await process.waitForLine { line in
            (try? JSONDecoder().decode(Request.self, from: Data(line.utf8)))?.n == n
        }
        return line.flatMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// The first request that `matches`, once it has arrived; `nil` if the server ended first.
    package func request(where matches: @escaping @Sendable (Request) -> Bool) async -> Request? {
        let line = await process.waitForLine { line in
            (try? JSONDecoder().decode(Request.self, from: Data(line.utf8))).map(matches) ?? false  // not a request's line: not it
        }
        return line.flatMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// The requests received so far, in order.
    package var requests: [Request] {
        process.lines().compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// Ends the 500s of `failUntilReleased`: the requests after this one are answered 200.
    package func release() {
        process.write("release\n")
    }

    /// Stops the server and waits for it to end.
    package func stop() async {
        process.terminate()
        _ = await process.waitUntilExit()
    }

    struct RecorderError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
