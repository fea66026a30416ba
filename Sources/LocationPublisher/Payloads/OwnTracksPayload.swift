#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// OwnTracks' `_type: location` JSON, the payload OwnTracks' apps publish and that the OwnTracks
/// Recorder, Home Assistant's OwnTracks integration, Traccar, openHAB and Dawarich read.
///
/// Each member as OwnTracks' booklet defines it (<https://owntracks.org/booklet/tech/json/>,
/// "_type=location"); a member whose value is unknown is left out, as the apps do:
///
/// | member | what | from |
/// |---|---|---|
/// | `_type` | `"location"` | required |
/// | `lat`, `lon` | WGS84 degrees (number) | required |
/// | `tst` | the fix's UNIX time, whole seconds (integer) | required |
/// | `acc` | horizontal accuracy, metres (integer) | ``PositionMessage/horizontalAccuracy`` |
/// | `alt` | altitude above sea level, metres (integer) | ``PositionMessage/altitude`` |
/// | `vac` | vertical accuracy of `alt`, metres (integer); only beside `alt` | ``PositionMessage/verticalAccuracy`` |
/// | `vel` | velocity, km/h (integer) | ``PositionMessage/speed`` × 3.6 |
/// | `cog` | course over ground, degrees (integer) | ``PositionMessage/course`` |
/// | `batt` | battery level, percent (integer) | ``PositionMessage/battery`` |
/// | `t` | trigger: `t` timer, `p` ping, `u` manual, `r` response | ``PositionMessage/trigger`` |
/// | `tid` | tracker id, two characters shown on the map (required in HTTP mode) | ``trackerID`` |
/// | `created_at` | when the message was made, UNIX seconds (integer), beside `tst`, the fix's time | ``PositionMessage/createdAt`` |
///
/// ```swift
/// let payload = OwnTracksPayload(trackerID: "GP")
/// let topic = OwnTracksPayload.topic(user: "alice", device: "van")   // "owntracks/alice/van"
/// ```
public struct OwnTracksPayload: Sendable, Hashable {
    /// The tracker id (`tid`): two characters the apps show on the map. `nil` leaves it out.
    public var trackerID: String?

    /// The tracker id for a device that has none set: the last two letters or digits of its name,
    /// as OwnTracks' apps take the last two characters of theirs, without the separators a
    /// fleet's names have (`van-5` is `n5`, not `-5`; `boat_12` is `12`).
    ///
    /// A name with a single letter or digit gets that one (a one-character id, which OwnTracks
    /// shows as it does two); a name with none (`--`, or empty) keeps its last two characters
    /// as they are, since there is nothing better to show.
    ///
    /// ```swift
    /// OwnTracksPayload.defaultTrackerID(forDevice: "van-5")   // "n5"
    /// OwnTracksPayload.defaultTrackerID(forDevice: "x-")      // "x"
    /// ```
    public static func defaultTrackerID(forDevice device: String) -> String {
        let letters = device.filter { $0.isLetter || $0.isWholeNumber }
        return String((letters.isEmpty ? device : letters).suffix(2))
    }

    /// A renderer that puts `trackerID` in every message.
    public init(trackerID: String? = nil) {
        self.trackerID = trackerID
    }

    /// The message as one JSON object, UTF-8: `_type: location`, or `_type: transition` for a
    /// region's enter or leave (``renderTransition(_:_:)``).
    public func render(_ message: PositionMessage) -> [UInt8] {
        if let transition = message.transition { return renderTransition(message, transition) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(200)
        TextBytes.append(#"{"_type":"location""#, to: &bytes)
        Self.appendPosition(message, to: &bytes)
        // `vac` is the accuracy of `alt` (the booklet's words): without an altitude it qualifies
        // nothing, and a consumer that reads it alone would take it for one.
        if Self.appendRounded("alt", message.altitude, to: &bytes) {
            Self.appendRounded("vac", message.verticalAccuracy, to: &bytes)
        }
        Self.appendRounded("vel", message.speed.map { $0 * 3.6 }, to: &bytes)
        Self.appendRounded("cog", message.course, to: &bytes)
        if let battery = message.battery {
            TextBytes.append(#","batt":"#, to: &bytes)
            Self.appendInteger(battery, to: &bytes)
        }
        TextBytes.append(#","t":"#, to: &bytes)
        TextBytes.appendJSONString(message.trigger.rawValue, to: &bytes)
        if let trackerID {
            TextBytes.append(#","tid":"#, to: &bytes)
            TextBytes.appendJSONString(trackerID, to: &bytes)
        }
        TextBytes.append(#","created_at":"#, to: &bytes)
        Self.appendInteger(Self.unixSeconds(message.createdAt), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// OwnTracks' last will (`_type: lwt`), which the broker publishes on the location topic when
    /// the publisher goes away without saying goodbye. `connectedAt` is `tst`: when the client
    /// first connected, as the booklet defines it.
    public static func lastWill(connectedAt: Date) -> [UInt8] {
        var bytes: [UInt8] = []
        TextBytes.append(#"{"_type":"lwt","tst":"#, to: &bytes)
        appendInteger(unixSeconds(connectedAt), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `owntracks/USER/DEVICE`, the topic OwnTracks' apps publish locations to (and their last will).
    public static func topic(user: String, device: String) -> String {
        "owntracks/\(user)/\(device)"
    }

    /// `,"lat":…,"lon":…,"tst":…` and `,"acc":…` when known: where and when, as a location and a
    /// transition both say it.
    static func appendPosition(_ message: PositionMessage, to bytes: inout [UInt8]) {
        TextBytes.append(#","lat":"#, to: &bytes)
        TextBytes.appendJSONNumber(message.latitude, to: &bytes)
        TextBytes.append(#","lon":"#, to: &bytes)
        TextBytes.appendJSONNumber(message.longitude, to: &bytes)
        TextBytes.append(#","tst":"#, to: &bytes)
        appendInteger(unixSeconds(message.time), to: &bytes)
        appendRounded("acc", message.horizontalAccuracy, to: &bytes)
    }

    /// Whole seconds since 1970, rounded down (OwnTracks' `tst`).
    static func unixSeconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }

    static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `,"name":N` with `value` rounded to an integer; nothing when it is unknown or not finite.
    /// Returns whether it was appended.
    @discardableResult
    static func appendRounded(_ name: StaticString, _ value: Double?, to bytes: inout [UInt8]) -> Bool {
        guard let value, value.isFinite, abs(value) < 1e15 else { return false }
        TextBytes.append(#","#, to: &bytes)
        TextBytes.append("\"", to: &bytes)
        TextBytes.append(name, to: &bytes)
        TextBytes.append("\":", to: &bytes)
        appendInteger(Int(value.rounded()), to: &bytes)
        return true
    }
}
