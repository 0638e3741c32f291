import Foundation
import Logging
import StowageRuntime
import Synchronization

/// Logging to stderr with a level from `--log-level` or `STOWAGE_LOG_LEVEL` (default info), as text or,
/// with `--log-format json` / `STOWAGE_LOG_FORMAT=json`, one JSON object per line.
public enum LogSetup {
    private static let done = Mutex(false)

    /// Bootstraps swift-log once per process at `level` (default info) in `format` (default text), both already
    /// resolved from their flags or `STOWAGE_` variables by ``EnvironmentRule``.
    public static func bootstrap(level: LogLevel?, format: LogFormat? = nil) {
        let parsed = (level ?? .info).level
        let json = format == .json
        done.withLock { already in
            guard !already else { return }
            already = true
            LoggingSystem.bootstrap { label in
                if json { return JSONLogHandler(label: label, logLevel: parsed) }
                return TextLogHandler(label: label, logLevel: parsed)
            }
        }
    }
}

/// One JSON object per line on stderr: `time`, `level`, `label`, `message`, `source`, then the metadata
/// (token, task, worker …) as string fields, for log shippers.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    /// Whole lines from concurrent loggers must not interleave on stderr.
    private static let output = Mutex(())

    public init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = "\(value)"
        }
        fields["time"] = ISO8601DateFormatter().string(from: Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        fields["source"] = event.source
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(fields) else { return }
        line.append(0x0A)
        Self.output.withLock { _ in FileHandle.standardError.write(line) }
    }
}
