import Foundation
import HTTPClient

/// How the destinations read an HTTP answer: its JSON, its message, and what an answer that is
/// not a success means for the queue. One reading, so each destination adds only what its
/// server says differently (FitTrackee's 413, Strava's rate-limit windows).
enum ServerAnswer {
    /// The answer's JSON object, if it is one.
    static func json(_ response: HTTPResponse) -> [String: Any]? {
        // An answer that is not JSON (an HTML error page) has no fields to read.
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
    }

    /// The server's `message` (with the fields of its `errors`, as Strava names them:
    /// "Bad Request (RefreshToken refresh_token invalid)"), or its `error` (intervals.icu's), else
    /// the start of the body.
    static func text(_ response: HTTPResponse) -> String {
        let object = json(response)
        if let message = object?["message"] as? String {
            let errors = (object?["errors"] as? [[String: Any]] ?? []).map { error in
                ["resource", "field", "code"].compactMap { error[$0] as? String }.joined(separator: " ")
            }
            return errors.isEmpty ? message : "\(message) (\(errors.joined(separator: "; ")))"
        }
        if let error = object?["error"] as? String, object?["error_description"] == nil { return error }
        let text = String(decoding: response.body.prefix(200), as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.isEmpty ? "no message" : text
    }

    /// What an answer that is not a success means: 401 and 403 refused credentials; 429 rate
    /// limited until `limitedUntil` (by default its `Retry-After`, else a minute from `now`);
    /// another 4xx refused as data; the rest unreachable, arrived maybe when `sending`.
    static func error(
        _ response: HTTPResponse, from name: String, sending: Bool, now: Date, limitedUntil: ((HTTPResponse) -> Date)? = nil
    ) -> UploadError {
        let text = text(response)
        switch response.status {
        case 401, 403:
            return .refusedCredentials(reason: "\(name) refused the credentials (HTTP \(response.status): \(text))")
        case 429:
            let until = limitedUntil?(response) ?? now.addingTimeInterval(response.header("retry-after").flatMap(Double.init) ?? 60)
            return .rateLimited(until: until, reason: "\(name) asks to wait (HTTP 429: \(text))")
        case 400..<500:
            return .refused(reason: "\(name) refused the workout (HTTP \(response.status): \(text))")
        default:
            return .unreachable(reason: "\(name) failed (HTTP \(response.status): \(text))", mayHaveArrived: sending)
        }
    }
}
