/// What `locate publish` does, in the words both `locate --help` (which lists it) and
/// `locate-publish --help` (which runs it) give.
package enum PublishSummary {
    package static let abstract =
        "Send positions to an MQTT broker or an HTTP server (OwnTracks, Home Assistant, Traccar), losing none."

    /// The program `locate publish` hands over to, installed beside `locate`.
    package static let executable = "locate-publish"
}
