/// The rules that keep GPS jitter from making false transitions, each with its default.
///
/// | rule | default | meaning |
/// |---|---|---|
/// | ``hysteresis`` | 5 m | outside only when `distance − accuracy > radius + hysteresis` |
/// | ``maximumAccuracy`` | 100 m | a fix claiming worse decides nothing |
/// | ``accuracyWhenUnreported`` | 10 m | the accuracy taken for a fix that reports none |
/// | ``confirmation`` | 2 fixes | a new state needs this many fixes (or this long) pointing to it |
/// | ``dwell`` | 60 s | inside this long gives a dwell event (an anchor: only by its own rules) |
/// | ``unknownAfter`` | 10 s | no usable fix this long makes every region unknown |
///
/// A fix decides only when its error circle is wholly on one side of the edge: inside when
/// `distance + accuracy < radius`, outside when `distance − accuracy > radius + hysteresis`
/// (distances to a polygon's or a corridor's edge alike); between, it decides nothing.
public struct MonitoringRules: Sendable, Hashable {
    /// How a new state is confirmed.
    public enum Confirmation: Sendable, Hashable {
        /// By this many consecutive deciding fixes pointing to it (1: at once). A fix pointing
        /// back to the current state starts the count again; a fix that decides nothing neither
        /// counts nor breaks it.
        case fixes(Int)
        /// By fixes pointing to it for this long, from the first of them (zero: at once).
        case duration(Duration)
    }

    /// Metres beyond the edge a fix's error circle must be to prove the device outside, so that a
    /// device at the edge does not flap. Default 5 m.
    public var hysteresis: Double
    /// A fix claiming a horizontal accuracy worse than this (metres) decides nothing, and does not
    /// count as usable for ``unknownAfter``. Default 100 m (a 2,200 m fix once marked someone home).
    public var maximumAccuracy: Double
    /// The accuracy taken for a fix that reports none (a GPX track's points). Default 10 m.
    public var accuracyWhenUnreported: Double
    /// How a new state is confirmed. Default ``Confirmation/fixes(_:)`` 2: one fix 200 m out
    /// between good ones makes no exit.
    public var confirmation: Confirmation
    /// Inside this long (from the enter) gives one ``RegionEvent/Kind/dwell`` event; `nil` for
    /// none. Default 60 s.
    ///
    /// An anchor (``RegionCondition/anchor(_:)``) makes no dwell event unless asked: the
    /// monitor's dwell does not apply to it, only that of rules given for it alone
    /// (``RegionMonitor/add(_:identifier:assuming:rules:)``), which ask for one with their `dwell`.
    /// A boat at anchor is meant to stay.
    public var dwell: Duration?
    /// With no usable fix for this long, every area becomes ``RegionState/unknown`` (a
    /// ``RegionEvent/Kind/unknown`` event, the anchor alarm's no-fix alarm), as
    /// `LocationManager`'s updates say `locationUnavailable` after 10 s. The next fixes then
    /// prove the state again; back to the state proven before, they make no event. Default 10 s.
    public var unknownAfter: Duration

    /// The rules, each defaulting as the table above says.
    public init(
        hysteresis: Double = 5, maximumAccuracy: Double = 100, accuracyWhenUnreported: Double = 10,
        confirmation: Confirmation = .fixes(2), dwell: Duration? = .seconds(60), unknownAfter: Duration = .seconds(10)
    ) {
        precondition(hysteresis >= 0 && maximumAccuracy > 0 && accuracyWhenUnreported >= 0, "MonitoringRules: distances must not be negative")
        self.hysteresis = hysteresis
        self.maximumAccuracy = maximumAccuracy
        self.accuracyWhenUnreported = accuracyWhenUnreported
        self.confirmation = confirmation
        self.dwell = dwell
        self.unknownAfter = unknownAfter
    }
}
