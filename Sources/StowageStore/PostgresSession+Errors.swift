import Foundation
import GRDB
import PostgresNIO

extension PostgresSession {
    /// Why connecting failed, as a ``StoreError`` naming the server (never the password).
    static func openError(_ error: any Error, location: PostgresLocation, hadPassword: Bool) -> StoreError {
        let server = "PostgreSQL at \(location.host):\(location.port)"
        guard let psql = error as? PSQLError else {
            return StoreError(.unreachable, "\(server) does not answer: \(error)")
        }
        if let state = psql.serverInfo?[.sqlState] {
            let said = psql.serverInfo?[.message] ?? "no message"
            if state.hasPrefix("28") {
                let source = hadPassword ? "the password from PGPASSWORD or the pgpass file" : "no password"
                return StoreError(
                    .badCredentials,
                    "\(server) refused user '\(location.user)' (\(said)); it was given \(source) "
                        + "(put the password in PGPASSFILE, default ~/.pgpass, or PGPASSWORD)")
            }
            if state == "3D000" {
                return StoreError(
                    .noDatabase, "\(server) has no database '\(location.database)' (create it: createdb)")
            }
            return StoreError(.unreachable, "\(server) refused the connection: \(said) (SQL state \(state))")
        }
        if psql.code == .authMechanismRequiresPassword {
            return StoreError(
                .badCredentials,
                "\(server) asks a password for user '\(location.user)' and none was found: put it in PGPASSFILE "
                    + "(default ~/.pgpass) or PGPASSWORD")
        }
        if psql.code == .sslUnsupported {
            return StoreError(.unreachable, "\(server) does not offer TLS, and sslmode asks for it")
        }
        let cause = psql.underlying.map { "\($0)" } ?? "\(psql.code)"
        return StoreError(.unreachable, "\(server) does not answer: \(cause)")
    }

    /// A refused statement as GRDB's `DatabaseError`, the error SQLite gives for the same thing (a broken
    /// constraint is `SQLITE_CONSTRAINT` on both engines): callers handle one kind of error whatever the engine.
    static func queryError(_ error: any Error, sql: String) -> any Error {
        guard let psql = error as? PSQLError else { return error }
        guard let info = psql.serverInfo else {
            return StoreError(
                .query, "the connection to PostgreSQL failed: \(psql.underlying.map { "\($0)" } ?? "\(psql.code)")")
        }
        let state = info[.sqlState] ?? ""
        let message = (info[.message] ?? "error") + (info[.detail].map { " (\($0))" } ?? "")
        let code: ResultCode = state.hasPrefix("23") ? .SQLITE_CONSTRAINT : .SQLITE_ERROR
        return DatabaseError(resultCode: code, message: "PostgreSQL \(state): \(message)", sql: sql)
    }

    /// A GRDB row with these columns in this order. GRDB builds ordered rows only from a dictionary literal (its
    /// `init(_:)` from a dictionary loses the order, and `row[0]` must be the first column): the literal's
    /// variadic initializer is called with an array, which is how a variadic parameter is passed.
    static func orderedRow(_ columns: [(String, (any DatabaseValueConvertible)?)]) -> Row {
        let make = unsafeBitCast(
            Row.init(dictionaryLiteral:) as ((String, (any DatabaseValueConvertible)?)...) -> Row,
            to: (([(String, (any DatabaseValueConvertible)?)]) -> Row).self)
        return make(columns)
    }
}
