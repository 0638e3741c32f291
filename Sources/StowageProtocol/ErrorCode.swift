/// The fixed set of error codes a title can end with (`status.error.code`). Documented in docs/error-codes.md.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    /// Could not reach the origin, connection reset, timed out.
    case network
    /// The origin answered with an HTTP status that is not success.
    case httpStatus = "http-status"
    /// No space left on the device holding the titles.
    case diskFull = "disk-full"
    /// Over the box's quota (`--quota`), not a full disk: the title waits (`suspended`, reason `quota`) until an
    /// eviction, a deletion or a larger quota makes room.
    case quota
    /// A license was refused or could not be acquired.
    case license
    /// A stored file failed verification more times than allowed.
    case integrity
    /// A playlist was malformed, live, or had nothing selectable.
    case playlist
    /// The source is gone (404/410 on the playlist).
    case sourceGone = "source-gone"
    /// Canceled by the operator.
    case canceled
    /// A URI or request was refused for safety (scheme, host, path).
    case refused
    /// A local I/O failure other than a full disk.
    case io
    /// No title (or device, or id) by that name: check the token with `stowctl list`.
    case notFound = "not-found"
    /// A gateway request without a valid credential (none, wrong, revoked or expired).
    case unauthorized
    /// The caller is known but its role does not allow the request (a CURVE key's role on the scheduler, a
    /// gateway request without its CSRF token or from a foreign origin): ask with a key or page that may.
    case forbidden
    /// A bug or an unexpected state; the message says what.
    case `internal`
    /// A command line a command cannot run (a bad flag or value, a bad `STOWAGE_<OPTION>`): exit 2. Only a
    /// command's own answer (`stowctl --json`) carries it; no title ends with it.
    case usage
}

/// An error that carries one of the fixed codes, so a command can print it as `{"error": {code, message}}`
/// (`stowctl --json`) or as one `Error: [code] message` line, whatever part of the program threw it.
public protocol CodedError: Error {
    var code: ErrorCode { get }
    /// The message in words, without the code.
    var message: String { get }
}

/// An error as it appears in `status --json`.
public struct TitleError: Codable, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String

    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}
