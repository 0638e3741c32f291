import Foundation
import StowageProtocol

/// `$STOWAGE_HOME` and what lives in it: the store, `titles/`, `run/` (ipc sockets, pid files), `logs/`.
public struct StowageHome: Sendable {
    public let root: URL

    /// `--home` wins, then `STOWAGE_HOME`, then `~/.stowage`.
    public init(option: String?) {
        let path = option ?? environmentValue("home")?.value ?? (NSHomeDirectory() + "/.stowage")
        root = URL(fileURLWithPath: path).standardizedFileURL
    }

    public var storePath: String { root.appendingPathComponent("stowage.sqlite").path }
    public var titlesRoot: URL { root.appendingPathComponent("titles") }
    public var runDirectory: URL { root.appendingPathComponent("run") }
    public var logsDirectory: URL { root.appendingPathComponent("logs") }

    /// Where devices reach this home's gateway (its `--public-url`, else the address it listens on), one line
    /// written by `stowage-gateway` once it listens, so `stowctl devices sign` can print a whole URL.
    public var gatewayURLFile: URL { runDirectory.appendingPathComponent("gateway.url") }

    /// The scheduler's default endpoint: an ipc socket in `run/` (a 0700 directory).
    public var defaultEndpoint: String { "ipc://" + runDirectory.appendingPathComponent("scheduler.ipc").path }

    /// The schedulers to connect to: `--scheduler`, then `STOWAGE_SCHEDULER` (one endpoint or several,
    /// comma-separated: ``SchedulerEndpoints``), then the default. Throws for a list that cannot be read (the
    /// option groups have refused it before this is asked).
    public func schedulerEndpoints(option: String?) throws -> [String] {
        guard let text = option ?? environmentValue("scheduler")?.value else { return [defaultEndpoint] }
        return try SchedulerEndpoints.parse(text)
    }

    /// Creates the folders with safe permissions.
    public func prepare() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        try fm.createDirectory(at: titlesRoot, withIntermediateDirectories: true)
        try fm.createDirectory(at: logsDirectory, withIntermediateDirectories: true)
        try fm.createDirectory(at: runDirectory, withIntermediateDirectories: true)
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runDirectory.path)
    }

    /// The directory of one title's offline copy.
    public func titleDirectory(_ token: String) -> URL { titlesRoot.appendingPathComponent(token) }
}

/// An ipc endpoint's path must fit in `sun_path` (107 bytes on Linux).
public func checkEndpoint(_ endpoint: String) throws {
    if endpoint.hasPrefix("ipc://"), endpoint.utf8.count - 6 > 107 {
        throw RuntimeError(
            "ipc endpoint path is \(endpoint.utf8.count - 6) bytes; the limit is 107. Use a shorter "
                + "--home or a tcp:// endpoint.")
    }
}

/// A start-up or runtime failure with a message for a person, and its code (`internal` unless said).
public struct RuntimeError: Error, CustomStringConvertible, Sendable, CodedError {
    public let description: String
    public let code: ErrorCode
    public init(_ description: String, code: ErrorCode = .internal) {
        self.description = description
        self.code = code
    }
    public var message: String { description }
}
