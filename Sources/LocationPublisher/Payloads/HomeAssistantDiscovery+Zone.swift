extension HomeAssistantDiscovery {
    /// Where a region's enter or leave goes: `swift-gps-facade/<objectID>/state`, the tracker's
    /// `state_topic` in its discovery configuration.
    ///
    /// Home Assistant's MQTT device tracker takes any string on its state topic as the device's
    /// state (a zone's name, or `home`), and its `payload_reset` as "derive the state from the
    /// position and Home Assistant's own zones again"
    /// (<https://www.home-assistant.io/integrations/device_tracker.mqtt/>, `state_topic`,
    /// `payload_reset`): an enter publishes the region's name, a leave the reset.
    public var stateTopic: String {
        "swift-gps-facade/\(objectID)/state"
    }

    /// The tracker's `payload_reset`: Home Assistant's default, `None`.
    public static let payloadReset = "None"

    /// The state for ``stateTopic`` after `transition`: the region's name on an enter, the reset
    /// on a leave.
    public func state(after transition: RegionTransition) -> [UInt8] {
        Array((transition.event == .enter ? transition.region : Self.payloadReset).utf8)
    }
}
