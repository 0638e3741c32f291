/// Why the store could not be opened or used on its engine: a code a script can match and a message that says what
/// to change (the server, the credentials, the database). A password is never part of one.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The `--store` text is not a `postgres://USER@HOST:PORT/DB` URL (or names what it may not carry).
        case badLocation = "bad-location"
        /// The URL carries a password: the command line is shown by `ps`, so it is refused.
        case passwordInURL = "password-in-url"
        /// No PostgreSQL server answered at the host and port.
        case unreachable
        /// The server refused the user or its password.
        case badCredentials = "bad-credentials"
        /// The server has no database of that name.
        case noDatabase = "no-database"
        /// The database holds tables that are not Stowage's: it is never mixed into someone else's schema.
        case notEmpty = "not-empty"
        /// The database was migrated by a newer Stowage (migrations this version does not know).
        case newerSchema = "newer-schema"
        /// A statement the server refused, or the connection broke during one.
        case query
        /// `stowctl store copy`: a table read back from the destination differs from the source (nothing was kept).
        case copyMismatch = "copy-mismatch"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "store (\(code.rawValue)): \(message)" }
}
