import GPSCore

extension OwnTracksPayload {
    /// `owntracks/USER/DEVICE/event`, the topic OwnTracks' apps publish transitions to.
    public static func eventTopic(user: String, device: String) -> String {
        topic(user: user, device: device) + "/event"
    }

    /// A region's enter or leave as OwnTracks' `_type: transition` JSON, each member as the
    /// booklet defines it (<https://owntracks.org/booklet/tech/json/>, "_type=transition"):
    ///
    /// | member | what | from |
    /// |---|---|---|
    /// | `_type` | `"transition"` | required |
    /// | `wtst` | when the waypoint (the region) was made, UNIX seconds | ``RegionTransition/regionCreatedAt`` |
    /// | `lat`, `lon` | where the transition was decided, WGS84 degrees | the message's position |
    /// | `tst` | when, UNIX seconds | ``PositionMessage/time`` |
    /// | `acc` | horizontal accuracy of `lat`, `lon`, metres (integer) | ``PositionMessage/horizontalAccuracy`` |
    /// | `tid` | the tracker id | ``trackerID`` |
    /// | `event` | `"enter"` or `"leave"` | ``RegionTransition/event`` |
    /// | `desc` | the waypoint's name | ``RegionTransition/region`` |
    /// | `t` | `"c"`: a region the device watches by its own position (the booklet's circular region; a polygon, a corridor the same) | |
    /// | `created_at` | when the message was made, UNIX seconds | ``PositionMessage/createdAt`` |
    public func renderTransition(_ message: PositionMessage, _ transition: RegionTransition) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(200)
        TextBytes.append(#"{"_type":"transition","wtst":"#, to: &bytes)
        Self.appendInteger(Self.unixSeconds(transition.regionCreatedAt), to: &bytes)
        Self.appendPosition(message, to: &bytes)
        if let trackerID {
            TextBytes.append(#","tid":"#, to: &bytes)
            TextBytes.appendJSONString(trackerID, to: &bytes)
        }
        TextBytes.append(#","event":"#, to: &bytes)
        TextBytes.appendJSONString(transition.event.rawValue, to: &bytes)
        TextBytes.append(#","desc":"#, to: &bytes)
        TextBytes.appendJSONString(transition.region, to: &bytes)
        TextBytes.append(#","t":"c","created_at":"#, to: &bytes)
        Self.appendInteger(Self.unixSeconds(message.createdAt), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
