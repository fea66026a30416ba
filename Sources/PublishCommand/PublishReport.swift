import CommandSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationFacade
import LocationPublisher

/// What `locate publish` tells the user on standard error: a line when delivery stops working
/// (the broker or server cannot be reached, TLS fails, the outbox cannot be written) and another
/// when it works again; and on a terminal a status line (queued, last sent), rewritten at most
/// once a second. The password is in none of them: errors name the destination by its URL alone.
final class PublishReport: Sendable {
    private struct State {
        /// The delivery error last reported, until a delivery succeeds.
        var failing: PublishError?
        var outboxFailing = false
        var rejected = 0
        var lastShown: ContinuousClock.Instant?
        var lineShown = false
    }

    private let statusLine: Bool
    /// The positions waiting for this run's destination (the publisher's status counts the
    /// whole outbox, which may hold some for another destination).
    private let pending: @Sendable () -> Int
    private let state = Locked(State())

    init(statusLine: Bool, pending: @escaping @Sendable () -> Int) {
        self.statusLine = statusLine
        self.pending = pending
    }

    /// Reports what changed in `status`.
    func show(_ status: PublisherStatus) {
        var lines: [String] = []
        let now = ContinuousClock.now
        let redraw: Bool = state.withLock { state in
            // A rejection drops one position; delivery itself goes on, so it is not "failing".
            let failure = status.lastError.flatMap { error -> PublishError? in
                if case .rejected = error { return nil }
                return error
            }
            switch (state.failing, failure) {
            case let (nil, error?):
                state.failing = error
                lines.append(Self.line(for: error))
            case let (old?, error?) where !Self.sameKind(old, error):
                state.failing = error
                lines.append(Self.line(for: error))
            case let (old?, nil) where status.lastError == nil:
                state.failing = nil
                lines.append("locate publish: delivering to \(old.destination) again; \(pending()) queued.")
            default:
                break
            }
            if status.rejected > state.rejected {
                let reason = status.lastError.map { "\($0)" } ?? "a position was rejected and dropped"
                lines.append("locate publish: \(reason) (\(status.rejected) so far).")
            }
            state.rejected = status.rejected
            switch (state.outboxFailing, status.outboxError) {
            case let (false, error?):
                state.outboxFailing = true
                lines.append("locate publish: \(error).")
            case (true, nil):
                state.outboxFailing = false
                lines.append("locate publish: the outbox is written again.")
            default:
                break
            }
            guard statusLine else { return false }
            if !lines.isEmpty || state.lastShown.map({ now - $0 >= .seconds(1) }) ?? true {
                state.lastShown = now
                state.lineShown = true
                return true
            }
            return false
        }
        if statusLine, !lines.isEmpty { Output.errorText("\r\u{1B}[K") }
        for line in lines { Output.error(line) }
        if redraw { Output.errorText("\r\u{1B}[K" + Self.statusText(status, queued: pending())) }
    }

    /// Clears the status line, if one is shown.
    func clear() {
        let shown = state.withLock { state in
            defer { state.lineShown = false }
            return state.lineShown
        }
        if statusLine, shown { Output.errorText("\r\u{1B}[K") }
    }

    /// Says that the source ended and the queue is being sent.
    func draining(because reason: String, timeout: Duration) {
        let queued = pending()
        guard queued > 0 else { return }
        Output.error("locate publish: \(reason); sending the \(queued) queued position\(queued == 1 ? "" : "s") for up to \(LocationError.format(timeout)).")
    }

    /// Says the login was refused.
    func refused(_ status: PublisherStatus) {
        let reason = status.lastError.map { "\($0)" } ?? "the login was refused"
        let queued = pending()
        Output.error("locate publish: \(reason). \(queued) position\(queued == 1 ? " is" : "s are") kept in the outbox.")
    }

    private static func line(for error: PublishError) -> String {
        "locate publish: \(error)."
    }

    private static func sameKind(_ one: PublishError, _ other: PublishError) -> Bool {
        switch (one, other) {
        case (.unreachable, .unreachable), (.refusedCredentials, .refusedCredentials), (.tlsFailure, .tlsFailure), (.rejected, .rejected): true
        default: false
        }
    }

    /// "queued 3  sent 120  last sent 2026-11-27T12:04:05Z" (the time of the fix last delivered).
    private static func statusText(_ status: PublisherStatus, queued: Int) -> String {
        var text = "queued \(queued)  sent \(status.sent)"
        if let lastSent = status.lastSent {
            text += "  last sent \(RFC3339.string(from: lastSent, fractionDigits: 0))"
        } else {
            text += "  nothing sent yet"
        }
        return text
    }
}
