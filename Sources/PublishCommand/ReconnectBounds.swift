import ArgumentParser
import LocationPublisher

/// `locate publish --reconnect MIN-MAX`: the seconds between tries to reach the broker or server
/// after a failure, from MIN, doubling, to at most MAX. The MQTT client's reconnect delay and the
/// publisher's backoff (the wait before it sends again) are both held to them.
struct ReconnectBounds: Equatable, Sendable {
    var minimum: Double
    var maximum: Double

    /// 1-60: `Backoff()`'s 1 s, doubling, at most 60 s.
    static let standard = ReconnectBounds(minimum: 1, maximum: 60)

    /// What --reconnect takes, for its help and its refusals.
    static let form = "MIN-MAX seconds, MIN above 0 and MAX at least MIN (such as 1-60, 0.5-10, or 5-5 for a steady 5 s)"

    init(minimum: Double, maximum: Double) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Reads `MIN-MAX`.
    ///
    /// - Throws: a `ValidationError` (exit 64) saying what to give.
    init(parsing text: String) throws(ValidationError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let minimum = Double(parts[0]), let maximum = Double(parts[1]),
              minimum.isFinite, maximum.isFinite, minimum > 0, maximum >= minimum
        else {
            throw ValidationError("--reconnect '\(text)': give \(Self.form).")
        }
        self.init(minimum: minimum, maximum: maximum)
    }

    /// The bounds as a ``Backoff``, doubling from ``minimum`` to ``maximum``.
    var backoff: Backoff {
        Backoff(initial: .seconds(minimum), maximum: .seconds(maximum))
    }
}
