import Logging

/// The library's log on standard error, warnings and worse only, as `StreamLogHandler` writes it,
/// but with a logger's metadata kept as it is set and formatted only for a message it writes.
///
/// `StreamLogHandler` formats its metadata again each time a key is set: a `GPSDClient` sets its
/// host, port and device, so every `locate once` paid for sorting and joining text (and for the
/// runtime's first look at the generic types that takes) that a run without a warning never prints.
package struct WarningLogHandler: LogHandler {
    private var stream: StreamLogHandler
    package var metadata: Logger.Metadata = [:]

    package init(label: String) {
        stream = StreamLogHandler.standardError(label: label)
        stream.logLevel = .warning
    }

    package var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    package var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as `StreamLogHandler` does with this metadata: the message's own metadata
    /// wins over the logger's.
    package func log(event: LogEvent) {
        guard !metadata.isEmpty else { return stream.log(event: event) }
        var event = event
        event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        stream.log(event: event)
    }
}
