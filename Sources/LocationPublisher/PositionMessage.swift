#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// One position waiting in the ``Outbox``: what a ``PublishDestination`` delivers.
///
/// It keeps the fix's measurements, not a rendered payload: each destination renders the format it
/// speaks (``OwnTracksPayload``, ``OsmAndPayload``, ``HomeAssistantDiscovery``) when it sends, so a
/// message queued for one format can be sent in another after a configuration change.
///
/// ```swift
/// let message = PositionMessage(id: 1, location: fix, trigger: .timer)
/// let json = OwnTracksPayload(trackerID: "GP").render(message)
/// ```
public struct PositionMessage: Sendable, Hashable {
    /// The outbox's row id: unique in its outbox, growing with each message appended. A message
    /// kept only in memory (the outbox could not be written, see ``Outbox/append(_:trigger:battery:createdAt:for:)``)
    /// has a negative id.
    public var id: Int64
    /// The fix's own time (the receiver's GPS time, else when it was received).
    public var time: Date
    /// Degrees north, WGS84.
    public var latitude: Double
    /// Degrees east, WGS84.
    public var longitude: Double
    /// Metres above mean sea level.
    public var altitude: Double?
    /// Estimated horizontal error, metres.
    public var horizontalAccuracy: Double?
    /// Estimated vertical error, metres.
    public var verticalAccuracy: Double?
    /// Speed over ground, metres per second.
    public var speed: Double?
    /// Course over ground, degrees clockwise from true north.
    public var course: Double?
    /// Why the position was published.
    public var trigger: PublishTrigger
    /// The device's battery level in percent, when known.
    public var battery: Int?
    /// When the message was made (appended to the outbox), on this machine's clock: OwnTracks'
    /// `created_at`, beside `tst`, the fix's time.
    public var createdAt: Date
    /// For a region's enter or leave, what happened (the position is where it was decided, `time`
    /// when): OwnTracks' `_type: transition`, Home Assistant's zone state. `nil` for a position.
    public var transition: RegionTransition?

    /// A message with every field given.
    public init(
        id: Int64, time: Date, latitude: Double, longitude: Double, altitude: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil,
        trigger: PublishTrigger = .timer, battery: Int? = nil, createdAt: Date = Date(), transition: RegionTransition? = nil
    ) {
        self.id = id
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.trigger = trigger
        self.battery = battery
        self.createdAt = createdAt
        self.transition = transition
    }

    /// A message of `location`: its time is the fix's GPS time, else when it was received.
    public init(
        id: Int64, location: Location, trigger: PublishTrigger = .timer, battery: Int? = nil, createdAt: Date = Date(),
        transition: RegionTransition? = nil
    ) {
        self.init(
            id: id, time: location.time ?? location.receivedAt, latitude: location.latitude, longitude: location.longitude,
            altitude: location.altitude, horizontalAccuracy: location.horizontalAccuracy,
            verticalAccuracy: location.verticalAccuracy, speed: location.speed, course: location.course,
            trigger: trigger, battery: battery, createdAt: createdAt, transition: transition)
    }
}

/// Why a position was published: OwnTracks' `t` ("trigger") member, whose letters these are.
public enum PublishTrigger: String, Sendable, Hashable, CaseIterable {
    /// `t`: published by the timer, moving (OwnTracks' "timer based publish in move move").
    case timer = "t"
    /// `p`: a ping, published while stationary at the slower rate.
    case ping = "p"
    /// `u`: asked for by the user.
    case manual = "u"
    /// `r`: the answer to a request for the position (OwnTracks' `reportLocation` command).
    case response = "r"
}

/// A region entered or left, published through the same outbox as the positions: OwnTracks'
/// `_type: transition` on `owntracks/USER/DEVICE/event` (<https://owntracks.org/booklet/tech/json/>,
/// "_type=transition"), Home Assistant's zone state.
///
/// ```swift
/// for await event in monitor.events where event.kind == .enter || event.kind == .exit {
///     guard let fix = event.location else { continue }
///     publisher.publish(RegionTransition(event: event.kind == .enter ? .enter : .leave, region: event.identifier,
///                                        regionCreatedAt: started), at: fix, time: event.date)
/// }
/// ```
public struct RegionTransition: Sendable, Hashable {
    /// OwnTracks' `event`.
    public enum Event: String, Sendable, Hashable, CaseIterable {
        case enter
        case leave
    }

    /// Entered or left.
    public var event: Event
    /// The region's name: OwnTracks' `desc`, Home Assistant's zone state on an enter.
    public var region: String
    /// When the region was defined: OwnTracks' `wtst` (the waypoint's time of creation, by which
    /// its readers tell one waypoint from another).
    public var regionCreatedAt: Date

    public init(event: Event, region: String, regionCreatedAt: Date) {
        self.event = event
        self.region = region
        self.regionCreatedAt = regionCreatedAt
    }
}
