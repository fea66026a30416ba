import LocationCore

/// Which fixes become published positions: at most one per ``minimumInterval``, one that moved at
/// least ``minimumDistance`` (else a ping at the slower ``stationaryInterval``), and none less
/// accurate than ``maximumAccuracy``. Times are the fixes' own, so a replay is filtered the same
/// at any speed.
///
/// It follows OwnTracks' monitoring modes: "move" mode publishes on an interval while moving
/// (``minimumInterval``, ``minimumDistance``), "significant changes" mode publishes when the device
/// moved, with pings in between (``stationaryInterval``).
///
/// ```swift
/// var filter = PublishFilter(minimumInterval: .seconds(30), minimumDistance: 50)
/// filter.maximumAccuracy = 100          // drop fixes worse than ±100 m
/// filter.stationaryInterval = .seconds(15 * 60)
/// ```
public struct PublishFilter: Sendable, Hashable {
    /// The least time between two published positions (by the fixes' times). `.zero`: every fix.
    public var minimumInterval: Duration
    /// The least distance, metres, from the last published position for a fix to count as moving.
    /// `0`: every fix moves.
    public var minimumDistance: Double
    /// Fixes whose horizontal accuracy is worse than this (metres) are not published; `nil`: no gate.
    /// A fix that gives no accuracy passes.
    public var maximumAccuracy: Double?
    /// Below this speed (m/s) a fix counts as stationary, whatever the distance. `0`: never.
    public var stationarySpeed: Double
    /// While stationary, a position (a ping) is published this often.
    public var stationaryInterval: Duration

    /// A filter; the defaults publish every fix with a position.
    public init(
        minimumInterval: Duration = .zero, minimumDistance: Double = 0, maximumAccuracy: Double? = nil,
        stationarySpeed: Double = 0, stationaryInterval: Duration = .seconds(15 * 60)
    ) {
        self.minimumInterval = minimumInterval
        self.minimumDistance = minimumDistance
        self.maximumAccuracy = maximumAccuracy
        self.stationarySpeed = stationarySpeed
        self.stationaryInterval = stationaryInterval
    }

    /// Why `fix` is published after `last` (the last position published, `nil` for none), or `nil`
    /// when it is not: ``PublishTrigger/timer`` moving, ``PublishTrigger/ping`` stationary.
    public func trigger(for fix: Location, after last: Location?) -> PublishTrigger? {
        guard fix.mode != .noFix, fix.hasValidCoordinates else { return nil }
        if let maximumAccuracy, let accuracy = fix.horizontalAccuracy, !(accuracy <= maximumAccuracy) { return nil }
        guard let last else { return .timer }
        let elapsed = (fix.time ?? fix.receivedAt).timeIntervalSince(last.time ?? last.receivedAt)
        guard elapsed >= Self.seconds(minimumInterval) else { return nil }
        let moved = fix.distance(to: last) >= minimumDistance
        let slow = fix.speed.map { $0 < stationarySpeed } ?? false
        if moved && !slow { return .timer }
        return elapsed >= Self.seconds(stationaryInterval) ? .ping : nil
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
