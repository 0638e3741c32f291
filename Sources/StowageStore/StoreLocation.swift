import Foundation

/// Where the store lives: the embedded SQLite file (the default, in `$STOWAGE_HOME`) or a PostgreSQL database
/// (`--store postgres://USER@HOST:PORT/DB`).
public enum StoreLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// Reads the `--store` text: a `postgres://` (or `postgresql://`) URL. What the URL leaves out comes from
    /// PGHOST, PGPORT, PGUSER and PGDATABASE (then localhost, 5432, the user, the user's name); a password never
    /// comes from the URL (the command line is shown by `ps`): from PGPASSWORD or the pgpass file when connecting.
    public static func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> StoreLocation
    {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            // Never echo what precedes an `@`: it may be a password.
            let shown = text.lastIndex(of: "@").map { "…" + text[$0...] } ?? text
            throw StoreError(
                .badLocation,
                "'\(shown.prefix(80))' is not a store: write postgres://USER@HOST:PORT/DB (or leave --store out for "
                    + "the embedded SQLite in $STOWAGE_HOME)")
        }
        if components.password != nil {
            throw StoreError(
                .passwordInURL,
                "the --store URL carries a password, and a command line is shown to every user by ps: remove it "
                    + "and put it in PGPASSFILE (default ~/.pgpass, mode 0600) or PGPASSWORD")
        }
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        let user =
            nonEmpty(components.user?.removingPercentEncoding) ?? nonEmpty(environment["PGUSER"])
            ?? nonEmpty(environment["USER"]) ?? "postgres"
        let host = nonEmpty(components.host) ?? nonEmpty(environment["PGHOST"]) ?? "localhost"
        var port = components.port ?? 5432
        if components.port == nil, let text = nonEmpty(environment["PGPORT"]) {
            guard let value = Int(text), (1...65_535).contains(value) else {
                throw StoreError(.badLocation, "PGPORT='\(text.prefix(20))' is not a port (1 to 65535)")
            }
            port = value
        }
        let path = String(components.path.drop(while: { $0 == "/" }))
        let database = nonEmpty(path.removingPercentEncoding) ?? nonEmpty(environment["PGDATABASE"]) ?? user
        var sslMode = PostgresLocation.SSLMode.disable
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else {
                throw StoreError(
                    .badLocation, "the --store URL has '\(item.name)', which Stowage does not read (only sslmode)")
            }
            guard let mode = item.value.flatMap(PostgresLocation.SSLMode.init(rawValue:)) else {
                throw StoreError(
                    .badLocation, "sslmode='\(item.value ?? "")' is not one of disable, require, verify-full")
            }
            sslMode = mode
        }
        return .postgres(
            PostgresLocation(
                host: host, port: port, user: user, database: database, sslMode: sslMode, environment: environment))
    }
}
