import Logging

/// swift-log's text lines on stderr (`StreamLogHandler`'s format), with the logger's metadata written out only
/// when a line is logged. `StreamLogHandler` formats its metadata again each time a key is set, and a server
/// sets one on every request (Hummingbird's `hb.request.id`) that is almost never logged: at line rate that
/// formatting was a few percent of the gateway's CPU.
public struct TextLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    private var stream: StreamLogHandler

    public init(label: String, logLevel: Logger.Level) {
        stream = StreamLogHandler.standardError(label: label)
        stream.logLevel = logLevel
    }

    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        }
        stream.log(event: event)
    }
}
