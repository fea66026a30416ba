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
/// when it works again; one when the login is refused, at the end; and on a terminal a status line
/// (queued, last sent), rewritten at most once a second. The password is in none of them: errors
/// name the destination by its URL alone.
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

    /// A line to say, decided under the lock and written after it: the queued count in it is
    /// read from the outbox as it is written (`pending` is I/O, kept out of the lock).
    private enum Line {
        case text(String)
        /// "delivering to ... again; N queued.", N read when the line is written.
        case deliveringAgain(destination: String)
    }

    /// Reports what changed in `status`.
    func show(_ status: PublisherStatus) {
        var lines: [Line] = []
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
                if let line = Self.line(for: error) { lines.append(.text(line)) }
            case let (old?, error?) where !Self.sameKind(old, error):
                state.failing = error
                if let line = Self.line(for: error) { lines.append(.text(line)) }
            case let (old?, nil) where status.lastError == nil:
                state.failing = nil
                lines.append(.deliveringAgain(destination: old.destination))
            default:
                break
            }
            if status.rejected > state.rejected {
                let reason = status.lastError.map { "\($0)" } ?? "a position was rejected and dropped"
                lines.append(.text("locate publish: \(reason) (\(status.rejected) so far)."))
            }
            state.rejected = status.rejected
            switch (state.outboxFailing, status.outboxError) {
            case let (false, error?):
                state.outboxFailing = true
                lines.append(.text("locate publish: \(error)."))
            case (true, nil):
                state.outboxFailing = false
                lines.append(.text("locate publish: the outbox is written again."))
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
        for line in lines {
            switch line {
            case let .text(text):
                Output.error(text)
            case let .deliveringAgain(destination):
                // Read now, as the line is written: what waits at the moment it speaks. The line
                // comes with the first acknowledgement after the failure, which is a batch's (up
                // to 20 positions): a 32-position backlog then has 12 left.
                Output.error("locate publish: delivering to \(destination) again; \(pending()) queued.")
            }
        }
        if redraw { Output.errorText("\r\u{1B}[K" + Self.statusText(status, queued: pending())) }
    }

    /// Writes `line` (about the source: lost, back), clearing the status line first if one is
    /// shown; the next status redraws it.
    func say(_ line: String) {
        let shown = state.withLock { state in
            defer {
                state.lineShown = false
                state.lastShown = nil
            }
            return state.lineShown
        }
        if statusLine, shown { Output.errorText("\r\u{1B}[K") }
        Output.error(line)
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

    /// The line that says delivery stopped working; `nil` for a refused login, which ends the run
    /// and is said once by ``refused(_:)``, with what is kept.
    private static func line(for error: PublishError) -> String? {
        if case .refusedCredentials = error { return nil }
        return "locate publish: \(error)."
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
