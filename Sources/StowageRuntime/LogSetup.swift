import Logging
import Synchronization

/// Logging to stderr with a level from `--log-level` or `STOWAGE_LOG_LEVEL` (default info).
public enum LogSetup {
    private static let done = Mutex(false)

    public static func bootstrap(level: String?) {
        let wanted = level ?? ProcessInfo.processInfo.environment["STOWAGE_LOG_LEVEL"] ?? "info"
        let parsed = Logger.Level(rawValue: wanted.lowercased()) ?? .info
        done.withLock { already in
            guard !already else { return }
            already = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = parsed
                return handler
            }
        }
    }
}

import Foundation
