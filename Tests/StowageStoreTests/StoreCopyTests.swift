import Foundation
import GRDB
import StowageLicensing
import StowageProtocol
import StowageTestSupport
import Testing

@testable import StowageStore

/// `stowctl store copy`'s engine: an embedded store with rows in every table lands in an empty PostgreSQL database
/// whole (through both stores' API and row for row), a used database is refused untouched, a copy that fails midway
/// leaves nothing, and the copied store goes on giving fresh ids.
@Suite("Store copy")
struct StoreCopyTests {
    /// An SQLite store on disk with rows in every table, made through the Store API as the scheduler makes them.
    static func populated() throws -> (Store, path: String) {
        guard case .sqlite(let path) = try Engine.sqlite.location() else { throw HarnessError("not sqlite") }
        let store = try Store(path: path)
        let shared = StoreTests()
        // Clear HLS, licensed and partly verified, with a poster, an id and a play.
        var hls = shared.title("hls")
        hls.name = "Clear HLS"
        hls.state = .completed
        hls.externalID = "film-1"
        hls.licenseTerms = LicenseTerms(kind: .rental, requestedAt: 1_700_000_000.25, expiresAt: 1_800_000_000.5)
        hls.playCount = 2
        hls.lastPlayedAt = 1_700_000_100.125
        hls.pinned = true
        try store.insert(hls)
        // Enough files that one table's INSERT carries thousands of values (more than SQLite binds at once).
        var plan = shared.plan(300)
        plan.bookmarks = [Bookmark(position: 12.5, label: "Chapter 2")]
        try store.savePlan(token: "hls", plan: plan)
        let first = try #require(try store.resources(token: "hls").first?.id)
        try store.markVerified(id: first, bytes: 1234, contentLength: 1234, sha256: String(repeating: "ab", count: 32))
        // AES-128 HLS with its wrapped key.
        var aes = shared.title("aes")
        aes.url = "http://h/aes.m3u8"
        aes.requestedAt = 2
        try store.insert(aes)
        var aesPlan = shared.plan(2)
        aesPlan.keys = [PlannedKey(uri: "http://h/key", method: "AES-128")]
        try store.savePlan(token: "aes", plan: aesPlan)
        try store.saveWrappedKeys(token: "aes", [0: Data((0..<44).map { UInt8($0) })])
        // DASH with Clear Key protection and a key by KID.
        var dash = shared.title("dash")
        dash.url = "http://h/m.mpd"
        dash.requestedAt = 3
        dash.manifestName = "manifest.mpd"
        dash.protection = TitleProtection(
            scheme: "cenc", systems: [.init(name: "clearkey", systemId: "e2719d58")], kids: ["00112233"],
            licenseUrls: [], deviceOnly: false)
        try store.insert(dash)
        var dashPlan = shared.plan(1)
        dashPlan.keys = [PlannedKey(uri: "kid:00112233", method: "CENC", keyFormat: "clearkey", keyID: "00112233")]
        try store.savePlan(token: "dash", plan: dashPlan)
        // A live recording, not planned yet.
        var live = shared.title("live")
        live.url = "http://h/live.m3u8"
        live.state = .recording
        live.requestedAt = 4
        live.record = RecordRequest(durationSeconds: 60)
        try store.insert(live)
        try store.appendEvent(token: "hls", kind: "state", detail: "completed")
        try store.setSetting("limits", #"{"titles":2}"#)
        try store.putBookmark(BookmarkRecord(token: "aes", kind: .user, position: 3.75, label: "mine"))
        try store.putDevice(DeviceRecord(name: "tv", secretHash: Data(repeating: 7, count: 32), createdAt: 10.5))
        try store.putDevice(
            DeviceRecord(name: "box2", secretHash: Data(repeating: 9, count: 32), createdAt: 11, peer: true))
        try store.recordPlay(device: "tv", token: "hls", at: 20.5)
        try store.enqueueNotifications([
            NotifyRecord(
                eventID: "e1", receiver: "https://n/hook", subject: "hls", kind: "state",
                body: Data(#"{"state":"completed"}"#.utf8), createdAt: 30)
        ])
        try store.rememberImport(exportID: "x1", token: "aes", fromBox: "box-a", at: 40)
        try store.addPlayReceipt("report-1", token: "hls", now: Date().timeIntervalSince1970)
        let term = try #require(
            try store.claimLeadership(holder: "h1", endpoints: ["ipc://x"], since: 50, leaseSeconds: 10))
        try store.releaseLeadership(term: term, holder: "h1")
        return (store, path)
    }

    /// Every table of an SQLite store (read here, not as the copy reads them), in the order they were made.
    static func tables(_ store: Store) throws -> [String] {
        guard case .sqlite(let queue) = store.engine else { throw HarnessError("not sqlite") }
        return try queue.read {
            try String.fetchAll(
                $0,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name <> 'grdb_migrations' ORDER BY rowid
                    """)
        }
    }

    /// A table's rows ordered by its primary key, each row its values.
    static func rows(_ connection: StoreConnection, _ table: String, key: [String]) throws -> [[DatabaseValue]] {
        try connection.rows("SELECT * FROM \(table) ORDER BY \(key.joined(separator: ", "))").map { row in
            (0..<row.count).map { row[$0] as DatabaseValue }
        }
    }

    static func fresh() throws -> (Store, url: String, database: String) {
        let url = try TestPostgres.shared().createDatabase()
        let database = String(url.split(separator: "/").last!)
        return (try Store(location: StoreLocation.parse(url)), url, database)
    }

    @Test func everyTableIsCopiedWholeAndReadsTheSameThroughBothStores() throws {
        let (source, _) = try Self.populated()
        let tables = try Self.tables(source)
        // Rows in every table, so a table the copy leaves out is seen here (a new table needs rows above).
        for table in tables {
            let count = try source.db.read { try $0.value(Int.self, "SELECT COUNT(*) FROM \(table)") ?? 0 }
            #expect(count > 0, "the test store has no row in \(table): add one in populated()")
        }
        let (destination, url, database) = try Self.fresh()
        var told: [String] = []
        let copied = try StoreCopy.copy(from: source, to: destination) { told.append($0.table) }
        #expect(copied.map(\.table) == tables)
        #expect(told == tables)

        // Through the public API of both stores.
        #expect(try destination.titles() == source.titles())
        for token in ["hls", "aes", "dash", "live"] {
            #expect(try destination.renditions(token: token) == source.renditions(token: token))
            #expect(try destination.resources(token: token) == source.resources(token: token))
            #expect(try destination.keys(token: token) == source.keys(token: token))
            #expect(try destination.bookmarks(token: token) == source.bookmarks(token: token))
            #expect(try destination.events(token: token) == source.events(token: token))
            #expect(try destination.progress(token: token) == source.progress(token: token))
        }
        #expect(try destination.keys(token: "aes").first?.wrapped?.count == 44)
        #expect(try destination.title(externalID: "film-1")?.token == "hls")
        #expect(try destination.devices() == source.devices())
        #expect(try destination.plays(device: "tv") == source.plays(device: "tv"))
        #expect(try destination.waitingNotifications(perReceiver: 10) == source.waitingNotifications(perReceiver: 10))
        #expect(try destination.importedExport("x1") == "aes")
        #expect(try destination.setting("limits") == source.setting("limits"))
        #expect(try destination.hasPlayReceipt("report-1"))
        let lease = try #require(try destination.leader())
        #expect(lease.term == 1)
        #expect(lease.holder == "h1")
        #expect(!lease.isHeld)

        // Row for row, each side read by its own connection ordered by the primary key, and counted by psql.
        let postgres = try TestPostgres.shared()
        let check = try Store(location: StoreLocation.parse(url))
        guard case .sqlite(let queue) = source.engine else { throw HarnessError("not sqlite") }
        for table in tables {
            let key = try queue.read { try $0.primaryKey(table).columns }
            let here = try source.db.read { try Self.rows($0, table, key: key) }
            let there = try check.db.read { try Self.rows($0, table, key: key) }
            #expect(here == there, "table \(table)")
            #expect(try postgres.psql(database, "SELECT COUNT(*) FROM \(table)") == String(here.count))
        }
    }

    @Test func aDatabaseThatHoldsRowsIsRefusedAndLeftAsItWas() throws {
        let (source, _) = try Self.populated()
        let (destination, _, database) = try Self.fresh()
        var other = StoreTests().title("theirs")
        other.url = "http://elsewhere/m.m3u8"
        try destination.insert(other)
        #expect {
            try StoreCopy.copy(from: source, to: destination)
        } throws: { ($0 as? StoreError)?.code == .notEmpty && "\($0)".contains("title") }
        #expect(try destination.titles().map(\.token) == ["theirs"])
        let postgres = try TestPostgres.shared()
        #expect(try postgres.psql(database, "SELECT COUNT(*) FROM rendition") == "0")
        #expect(try postgres.psql(database, "SELECT term || ':' || holder FROM leader") == "0:")
    }

    @Test func aCopyThatFailsMidwayLeavesTheDestinationEmpty() throws {
        let (source, _) = try Self.populated()
        // A row of the last table with a text where PostgreSQL keeps a number (SQLite keeps what it is given): its
        // INSERT fails after every other table went in.
        try source.db.write { _ = try $0.execute("UPDATE playReceipt SET receivedAt = 'later'") }
        let (destination, url, database) = try Self.fresh()
        #expect {
            try StoreCopy.copy(from: source, to: destination)
        } throws: {
            let error = $0 as? StoreError
            return error?.code == .query && error?.message.hasPrefix("table playReceipt: the server refused") == true
        }
        let postgres = try TestPostgres.shared()
        for table in try Self.tables(source) where table != "leader" {
            #expect(try postgres.psql(database, "SELECT COUNT(*) FROM \(table)") == "0", "table \(table)")
        }
        #expect(try postgres.psql(database, "SELECT term || ':' || holder FROM leader") == "0:")
        // And the database is still good for a copy once the source is.
        try source.db.write { _ = try $0.execute("UPDATE playReceipt SET receivedAt = 1") }
        let fixed = try Store(location: StoreLocation.parse(url))
        #expect(try StoreCopy.copy(from: source, to: fixed).count == Self.tables(source).count)
    }

    @Test func afterACopyNewRowsGetFreshIdsAndTheStoreWorks() throws {
        let (source, _) = try Self.populated()
        let (destination, _, _) = try Self.fresh()
        _ = try StoreCopy.copy(from: source, to: destination)
        let maxIDs = try destination.db.read { db in
            try ["rendition", "resource", "event", "devicePlay", "notifyOutbox"].map {
                try db.value(Int64.self, "SELECT MAX(id) FROM \($0)") ?? 0
            }
        }
        var title = StoreTests().title("new")
        title.url = "http://h/new.m3u8"
        title.requestedAt = 5
        try destination.insert(title)
        try destination.savePlan(token: "new", plan: StoreTests().plan(2))
        try destination.appendEvent(token: "new", kind: "state", detail: "requested")
        try destination.recordPlay(device: "tv", token: "new", at: 60)
        try destination.enqueueNotifications([
            NotifyRecord(
                eventID: "e2", receiver: "https://n/hook", subject: "new", kind: "state", body: Data(), createdAt: 61)
        ])
        let newIDs = try destination.db.read { db in
            try [
                "SELECT MIN(id) FROM rendition WHERE token = 'new'", "SELECT MIN(id) FROM resource WHERE token = 'new'",
                "SELECT MIN(id) FROM event WHERE token = 'new'", "SELECT MIN(id) FROM devicePlay WHERE token = 'new'",
                "SELECT MIN(id) FROM notifyOutbox WHERE subject = 'new'",
            ].map { try db.value(Int64.self, $0) ?? 0 }
        }
        for (new, old) in zip(newIDs, maxIDs) { #expect(new > old) }
        #expect(try destination.titles().map(\.token) == ["hls", "aes", "dash", "live", "new"])
        #expect(try destination.resources(token: "new").count == 2)
        #expect(try destination.plays(device: "tv").count == 2)
        // The copied leader row's term goes on: the farm's first leader takes term 2.
        #expect(try destination.claimLeadership(holder: "farm-1", endpoints: [], since: 70, leaseSeconds: 10) == 2)
    }
}
