import Foundation
import GRDB
import StowageProtocol
import StowageTestSupport
import Testing

@testable import StowageStore

/// What only the PostgreSQL engine has to prove: its schema follows the migrator (an older database gains what a
/// newer release added, data rewritten once), two schedulers opening at once take turns, two writers keep their
/// transactions' guarantees, and a database that is not Stowage's, a newer one or a server that cannot be reached is
/// a clear error.
@Suite("Store on PostgreSQL")
struct StorePostgresTests {
    func fresh() throws -> (PostgresLocation, String) {
        let url = try TestPostgres.shared().createDatabase()
        guard case .postgres(let location) = try StoreLocation.parse(url) else { throw HarnessError("not postgres") }
        return (location, url)
    }

    @Test func anOlderSchemaGainsTheNewerReleasesColumnAndKeepsItsRows() throws {
        let (location, _) = try fresh()
        let old = try Store(postgres: location, upTo: "v24-pathways")
        #expect(try old.appliedMigrations() == Array(StoreTests.migrations.prefix(24)))
        try old.db.write {
            try $0.execute(
                """
                INSERT INTO title (token, url, state, selection, headers, requestedAt, planned)
                VALUES ('t1', 'http://h/m.m3u8', 'completed', '{}', '[]', 1, 1)
                """)
        }
        let columns = { try old.db.read { try PostgresSchema.columns($0.postgres!, "title") } }
        #expect(try !columns().contains("singlefile"))
        let store = try Store(location: .postgres(location))
        #expect(try store.appliedMigrations() == StoreTests.migrations)
        #expect(try columns().contains("singlefile"))
        var title = try #require(try store.title("t1"))
        #expect(title.singleFile == nil)
        title.singleFile = .mp4
        try store.update(title)
        #expect(try store.title("t1")?.singleFile == .mp4)
    }

    /// v8 rewrites data: its PostgreSQL step turns the license columns of a database made before v8 into JSON
    /// terms, then the columns go.
    @Test func v8RewritesLicensesOfAnOlderDatabaseOnce() throws {
        let (location, _) = try fresh()
        let old = try Store(postgres: location, upTo: "v7-waiting")
        try old.db.write { db in
            let insert = """
                INSERT INTO title (token, url, state, selection, headers, requestedAt, planned,
                                   licenseKind, licenseRequestedAt, licenseExpiresAt, licenseTerms)
                VALUES (?, 'http://h/m.m3u8', 'completed', '{}', '[]', 1, 1, ?, ?, ?, ?)
                """
            try db.execute(insert, ["pre-v3", "rental", 10.0, 20.0, nil])
            try db.execute(insert, ["unlicensed", nil, nil, nil, nil])
        }
        let store = try Store(location: .postgres(location))
        let columns = try store.db.read { try PostgresSchema.columns($0.postgres!, "title") }
        #expect(!columns.contains("licensekind"))
        let terms = try #require(try store.title("pre-v3")?.licenseTerms)
        #expect(terms.kind == .rental)
        #expect(terms.requestedAt == 10)
        #expect(terms.expiresAt == 20)
        #expect(try store.title("unlicensed")?.licenseTerms == nil)
    }

    @Test func twoSchedulersOpeningAtOnceTakeTurnsOnTheSchema() throws {
        let (location, _) = try fresh()
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            do {
                let store = try Store(location: .postgres(location))
                results.add(try store.appliedMigrations())
            } catch { results.add(error) }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(results.migrations == Array(repeating: StoreTests.migrations, count: 3))
    }

    /// Two connections write at once: a change that fails inside one's batch is undone alone, the rest of that batch
    /// commits, and the other's committed change is untouched by either.
    @Test func twoWritersKeepTheirTransactionsGuarantees() throws {
        let (location, _) = try fresh()
        let a = try Store(location: .postgres(location))
        let b = try Store(location: .postgres(location))
        try a.insert(StoreTests().title("a"))
        try b.insert(StoreTests().title("b"))
        try a.savePlan(token: "a", plan: StoreTests().plan(2))
        var failure: (any Error)?
        try a.batch {
            do { try a.setSetting("from-a", "1") } catch { Issue.record("\(error)") }
            do { try a.insert(StoreTests().title("b")) } catch { failure = error }  // b's token: refused
            do {
                // b commits while a's batch is open; a's changes are not visible to b yet.
                try b.setSetting("from-b", "1")
                #expect(try b.setting("from-a") == nil)
                let ids = try a.resources(token: "a").compactMap(\.id)
                try a.markVerified(id: ids[0], bytes: 1, contentLength: 1, sha256: "00")
            } catch { Issue.record("\(error)") }
        }
        #expect((failure as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT)
        #expect(try b.setting("from-a") == "1")
        #expect(try a.setting("from-b") == "1")
        #expect(try b.resources(token: "a", state: .verified).count == 1)
        #expect(try b.title("b")?.url == "http://h/m.m3u8")
    }

    @Test func aDatabaseOfOtherTablesIsRefused() throws {
        let (location, url) = try fresh()
        _ = try TestPostgres.shared().psql(String(url.split(separator: "/").last!), "CREATE TABLE invoices (id int)")
        #expect(throws: StoreError.self) {
            do { _ = try Store(location: .postgres(location)) } catch let error as StoreError {
                #expect(error.code == .notEmpty)
                #expect(error.message.contains("invoices"))
                throw error
            }
        }
    }

    @Test func aDatabaseMigratedByANewerReleaseIsRefused() throws {
        let (location, url) = try fresh()
        _ = try Store(location: .postgres(location))
        let name = String(url.split(separator: "/").last!)
        _ = try TestPostgres.shared().psql(name, "INSERT INTO grdb_migrations VALUES ('v99-future')")
        let error = try #require(throws: StoreError.self) { try Store(location: .postgres(location)) }
        #expect(error.code == .newerSchema)
        #expect(error.message.contains("v99-future"))
    }

    @Test func anUnreachableServerAMissingDatabaseAndAnUnknownUserAreNamed() throws {
        let server = try TestPostgres.shared()
        let port = try Harness.freePort()
        let nobody = try #require(throws: StoreError.self) {
            try Store(location: StoreLocation.parse("postgres://u@127.0.0.1:\(port)/db", environment: [:]))
        }
        #expect(nobody.code == .unreachable)
        #expect(nobody.message.contains("127.0.0.1:\(port)"))
        let missing = try #require(throws: StoreError.self) {
            try Store(location: StoreLocation.parse("\(server.urlPrefix)/no_such_db", environment: [:]))
        }
        #expect(missing.code == .noDatabase)
        let stranger = try #require(throws: StoreError.self) {
            try Store(
                location: StoreLocation.parse(
                    "postgres://stranger@\(server.host):\(server.port)/postgres", environment: [:]))
        }
        #expect(stranger.code == .badCredentials)
        #expect(stranger.message.contains("stranger"))
        // The tests' server offers no TLS: sslmode=require is refused, not quietly sent in the clear.
        let clear = try #require(throws: StoreError.self) {
            try Store(location: StoreLocation.parse("\(server.urlPrefix)/postgres?sslmode=require", environment: [:]))
        }
        #expect(clear.code == .unreachable)
        #expect(clear.message.contains("TLS"))
    }
}

/// What concurrent openers reported.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var applied: [[String]] = []
    private var failures: [String] = []
    var migrations: [[String]] { lock.withLock { applied } }
    var errors: [String] { lock.withLock { failures } }
    func add(_ migrations: [String]) { lock.withLock { applied.append(migrations) } }
    func add(_ error: any Error) { lock.withLock { failures.append("\(error)") } }
}
