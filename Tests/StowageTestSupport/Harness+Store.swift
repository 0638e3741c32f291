import Foundation

extension Harness {
    /// The scheduler's environment for the store: with `STOWAGE_TEST_STORE=postgres`, every scheduler a test starts
    /// keeps its store in a PostgreSQL database of that test (made on first use, the same one across its restarts;
    /// the URL kept in the test's folder), so an integration suite runs on either engine. A test that sets its own
    /// `--store` or `STOWAGE_STORE` keeps it.
    func storeEnvironment(_ extra: [String], _ environment: [String: String]) throws -> [String: String] {
        guard ProcessInfo.processInfo.environment["STOWAGE_TEST_STORE"] == "postgres",
            environment["STOWAGE_STORE"] == nil, !extra.contains(where: { $0.hasPrefix("--store") })
        else { return environment }
        let file = root.appendingPathComponent("store-url")
        let url: String
        if let known = try? String(contentsOf: file, encoding: .utf8) {
            url = known
        } else {
            url = try TestPostgres.shared().createDatabase()
            try url.write(to: file, atomically: true, encoding: .utf8)
        }
        return environment.merging(["STOWAGE_STORE": url]) { _, new in new }
    }

    /// Rows of a query on the scheduler's store, read as an operator would (e.g. while the scheduler is down): with
    /// sqlite3 on the home's file, or with psql on the test's PostgreSQL database. One row a line, fields separated
    /// by `separator`.
    public func storeQuery(_ sql: String, separator: String = "|") throws -> String {
        let file = root.appendingPathComponent("store-url")
        if let url = try? String(contentsOf: file, encoding: .utf8), let name = url.split(separator: "/").last {
            return try (storeServer ?? TestPostgres.shared()).psql(String(name), sql, separator: separator)
        }
        let store = home.appendingPathComponent("stowage.sqlite").path
        return try TestMedia.shOutput("sqlite3 -separator '\(separator)' '\(store)' \"\(sql)\"", in: root).1
    }
}
