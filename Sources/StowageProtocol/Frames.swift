/// Constants every Stowage process agrees on. See PROTOCOL.md beside this file.
public enum WireProtocol {
    /// First frame of every message after the ROUTER identity. Bumped on incompatible change.
    public static let version = "STW1"
    /// Heartbeat period in both directions.
    public static let heartbeatMilliseconds = 1_000
    /// Heartbeats that may be missed before a peer is declared dead.
    public static let liveness = 3
    /// Largest message any socket facing another process accepts (`ZMQ_MAXMSGSIZE`).
    public static let maxMessageBytes: Int64 = 64 * 1024 * 1024
    /// Workers close HTTP connections idle this long, so the scheduler can count the connections an origin
    /// sees (requests in flight plus recently idle connections) against the per-host limit.
    public static let connectionIdleMilliseconds = 1_000
    /// Reconnect backoff for workers and clients, milliseconds.
    public static let reconnectInitialMilliseconds = 1_000
    public static let reconnectMaxMilliseconds = 32_000
}

/// The verbs of the protocol; frame 2 of every message.
public enum Command: String, Sendable, CaseIterable {
    // worker <-> scheduler
    case register = "REGISTER"
    case registered = "REGISTERED"
    case heartbeat = "HEARTBEAT"
    case reregister = "REREGISTER"
    case task = "TASK"
    case cancelTask = "CANCEL"
    case limits = "LIMITS"
    case result = "RESULT"
    case progress = "PROGRESS"
    case bye = "BYE"
    // client <-> scheduler
    case request = "REQUEST"
    case reply = "REPLY"
    case event = "EVENT"
}

/// A decoded message: its command and its (still encoded) JSON body.
public struct Envelope: Sendable, Equatable {
    public var command: Command
    public var body: [UInt8]

    public init(command: Command, body: [UInt8]) {
        self.command = command
        self.body = body
    }
}

/// Why a message was rejected. Never fatal: the receiver drops the message, logs and counts it.
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case frameCount = "frame-count"
        case version = "version"
        case unknownCommand = "unknown-command"
        case badBody = "bad-body"
        case tooLarge = "too-large"
    }
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "protocol error [\(code.rawValue)]: \(message)" }
}
