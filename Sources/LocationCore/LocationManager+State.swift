#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// What a request or stream accepts.
struct Criteria: Sendable {
    var minimumMode: FixMode
    var desiredAccuracy: Double?

    func accepts(_ location: Location) -> Bool {
        guard location.mode >= minimumMode else { return false }
        guard let desiredAccuracy else { return true }
        guard let accuracy = location.horizontalAccuracy else { return false }
        return accuracy <= desiredAccuracy
    }
}

/// A fix and when the manager received it (now less its age, for one the source held), as time
/// elapsed on the manager's clock.
struct TimedFix: Sendable {
    var location: Location
    var receivedAt: Duration
}

/// A fix a request has taken but not returned yet: it met the criteria without the measurements
/// its mode gives, and the request waits for the rest of its epoch until `until`.
struct HeldFix: Sendable {
    var fix: TimedFix
    var until: Duration
}

/// One waiting `requestLocation` call: a small state machine whose states are "waiting" (in
/// `ManagerState.requests`, continuation stored, with or without a ``HeldFix``) and "finished"
/// (removed, continuation taken out under the lock and resumed once, outside it).
struct PendingRequest: Sendable {
    var continuation: CheckedContinuation<Location, any Error>
    var criteria: Criteria
    var maximumAge: Duration?
    var timeout: Duration
    var deadline: Duration
    var best: Location?
    var held: HeldFix?
    /// The deadline's timer, set just after the request is stored (it is created outside the lock).
    var timer: Task<Void, Never>?
    /// The timer of the wait for the rest of the held fix's epoch, likewise.
    var epochTimer: Task<Void, Never>?
}

/// Where a stream's elements go: plain fixes (``LocationManager/updates(minimumMode:desiredAccuracy:distanceFilter:buffering:)``)
/// or updates (``LocationManager/liveUpdates(minimumMode:desiredAccuracy:distanceFilter:buffering:)``).
enum UpdateSink: Sendable {
    case locations(AsyncThrowingStream<Location, any Error>.Continuation)
    case updates(AsyncThrowingStream<LocationUpdate, any Error>.Continuation)

    func finish(throwing error: LocationError) {
        switch self {
        case let .locations(continuation): continuation.finish(throwing: error)
        case let .updates(continuation): continuation.finish(throwing: error)
        }
    }
}

struct StreamWaiter: Sendable {
    var sink: UpdateSink
    var criteria: Criteria
    var distanceFilter: Double?
    var lastDelivered: Location?
    /// When (on the manager's clock) the last fix meeting the criteria came, or the stream began.
    var lastUsableAt: Duration
    /// Whether the stream has said, since then, that no usable fix comes.
    var saidUnavailable = false
    /// The task that says so, for a stream of updates (created just after the stream is stored).
    var availabilityTimer: Task<Void, Never>?
}

/// Something for a stream, queued under the lock and handed over outside it, in the order it was
/// decided: the source's thread and a stream's availability timer both deliver.
enum StreamDelivery: Sendable {
    case location(UpdateSink, Location, isStationary: Bool)
    case unavailable(UpdateSink)
    case finish(UpdateSink, LocationError)

    func perform() {
        switch self {
        case let .location(.locations(continuation), location, _): continuation.yield(location)
        case let .location(.updates(continuation), location, stationary):
            continuation.yield(LocationUpdate(location: location, isStationary: stationary))
        case .unavailable(.locations): break
        case let .unavailable(.updates(continuation)): continuation.yield(LocationUpdate(location: nil, locationUnavailable: true))
        case let .finish(sink, error): sink.finish(throwing: error)
        }
    }
}

/// What the manager asks of its source (and the grace timer), in the order it decided: applied
/// one at a time, outside the lock, by whichever caller finds them pending
/// (``LocationManager/performSourceActions()``): ``SourceMachine``'s, and the polls of requests.
enum SourceAction: Sendable {
    case start
    case stop
    case requestLatestFix
    case startGraceTimer(token: UInt64, until: Duration)
    case cancel(Task<Void, Never>)
}

/// A consumer of the manager's source through a ``SharedLocationSource``: the observers its events
/// go to, and whether it wants the source running.
struct Listener: Sendable {
    var observers: LocationObservers
    var wantsSource = false
}

struct ManagerState: Sendable {
    var nextID: UInt64 = 0
    var requests: [UInt64: PendingRequest] = [:]
    var streams: [UInt64: StreamWaiter] = [:]
    var listeners: [UInt64: Listener] = [:]
    /// Whether the source runs, and why.
    var source = SourceMachine()
    /// Starts, stops and polls decided and not yet applied, oldest first.
    var sourceActions = InOrderQueue<SourceAction>()
    /// What streams are due, oldest first.
    var deliveries = InOrderQueue<StreamDelivery>()
    var latest: TimedFix?
    var observation: LocationObservation?
    /// Whether the device stands still, by the live fixes (see ``LocationUpdate/isStationary``).
    var motion = Motion(rule: .standingStill)
}

/// The live fixes' motion, as ``MotionDetector`` decides it: for ``LocationUpdate/isStationary``.
struct Motion: Sendable {
    /// What the detector reads of a fix.
    struct Fix: MotionFix {
        var time: Double
        var latitude: Double
        var longitude: Double
        var speed: Double?
        var horizontalAccuracy: Double?
        var segment: Int { 0 }
    }

    private var detector: MotionDetector<Fix, NoMotionAction>
    private var lastTime: Double?

    init(rule: MotionRule) {
        detector = MotionDetector(rule: rule)
    }

    var isStationary: Bool { detector.isStationary }

    /// Takes a live fix with a position and a time after the last one's (a replay that starts over
    /// starts the judging over).
    mutating func observe(_ location: Location) {
        guard location.mode >= .fix2D, let time = location.time?.timeIntervalSince1970 else { return }
        if let lastTime, time <= lastTime {
            guard time < lastTime else { return }
            detector = MotionDetector(rule: detector.rule)
        }
        lastTime = time
        _ = detector.add(Fix(
            time: time, latitude: location.latitude, longitude: location.longitude, speed: location.speed,
            horizontalAccuracy: location.horizontalAccuracy))
    }
}
