import Foundation
import GRDB
import StowageProtocol
import Testing

@testable import StowageStore

@Suite("Store")
struct StoreTests {
    func plan(_ n: Int) -> ResolvedPlan {
        let rendition = PlannedRendition(
            kind: .video, sourceURL: "http://h/v.m3u8", localPath: "video/index.m3u8",
            playlist: "#EXTM3U\n")
        let resources = (0..<n).map {
            PlannedResource(
                kind: .segment, rendition: 0, url: "http://h/\($0).ts", rangeOffset: nil, rangeLength: nil,
                localPath: "video/seg-\($0).ts", container: .mpegTS, encrypted: false, duration: 2)
        }
        return ResolvedPlan(
            masterPlaylist: "#EXTM3U\n", renditions: [rendition], resources: resources,
            bytesEstimate: 1000)
    }

    func title(_ token: String) -> TitleRecord {
        TitleRecord(
            token: token, url: "http://h/m.m3u8", name: nil, state: .requested, priority: 0, selection: Selection(),
            headers: [], requestedAt: 1)
    }

    static let migrations = [
        "v1-initial", "v2-keys-and-plays", "v3-license-terms", "v4-key-systems", "v5-library",
        "v6-title-url-index", "v7-waiting", "v8-license-terms-only", "v9-recordings", "v10-devices",
        "v11-title-order-index",
        "v12-dash", "v13-network-reach", "v14-operator-keys", "v15-segment-cipher",
        "v16-bundle-transfer",
        "v17-peer-fill",
        "v18-fill-windows",
        "v19-quota",
        "v20-notify-outbox",
        "v21-bundle-imports",
        "v22-device-last-seen",
        "v23-clip-range", "v24-pathways", "v25-single-file", "v26-leader", "v27-play-receipts",
    ]

    @Test(arguments: Engine.allCases) func migratesOnceAndKeepsData(_ engine: Engine) throws {
        let location = try engine.location()
        let store = try Store(location: location)
        #expect(store.dialect.rawValue == engine.rawValue)
        #expect(try store.appliedMigrations() == Self.migrations)
        try store.insert(title("t1"))
        // Re-opening applies nothing twice and keeps data.
        let again = try Store(location: location)
        #expect(try again.appliedMigrations() == Self.migrations)
        #expect(try again.title("t1")?.url == "http://h/m.m3u8")
        if case .sqlite(let path) = location { #expect(FileManager.default.fileExists(atPath: path + "-wal")) }
    }

    @Test(arguments: Engine.allCases) func aBatchCommitsOnceAndAFailedChangeUndoesOnlyItself(_ engine: Engine) throws {
        let location = try engine.location()
        let store = try Store(location: location)
        try store.insert(title("t1"))
        try store.savePlan(token: "t1", plan: plan(3))
        // Another connection (another process after a crash) sees nothing of the batch before it commits.
        let outside = try Store(location: location)
        let verifiedOutside = { try outside.resources(token: "t1", state: .verified).count }
        var seenDuring: Int?
        var failure: Error?
        try store.batch {
            do {
                var resources = try store.resources(token: "t1")
                resources[0].state = .verified
                try store.update(resources[0])
                #expect(try store.resource(id: resources[0].id!)?.state == .verified, "visible inside the batch")
                seenDuring = try verifiedOutside()
                try store.insert(title("t1"))  // a duplicate token: this change fails and is undone alone
            } catch { failure = error }
            do {
                var second = try store.resources(token: "t1")[1]
                second.state = .verified
                try store.update(second)
            } catch { Issue.record("\(error)") }
        }
        #expect(failure != nil)
        #expect(seenDuring == 0, "a change inside a batch was committed before the batch ended")
        #expect(try verifiedOutside() == 2)
        #expect(!store.inBatch)
    }

    @Test(arguments: Engine.allCases) func queuedResourcesAreTheTitlesFilesInOrderWithTheirStatesAndURLs(
        _ engine: Engine
    ) throws {
        let store = try engine.store()
        try store.insert(title("q"))
        try store.insert(title("other"))
        try store.savePlan(token: "q", plan: plan(3))
        try store.savePlan(token: "other", plan: plan(2))
        var whole = try store.resources(token: "q")
        whole[1].state = .verified
        try store.update(whole[1])
        let queued = try store.queuedResources(token: "q")
        #expect(queued == whole.map { QueuedResource(id: $0.id!, state: $0.state, url: $0.url) })
        #expect(queued.map(\.state) == [.pending, .verified, .pending])
        try store.db.write { try $0.execute("UPDATE resource SET state = 'lost' WHERE id = ?", [whole[2].id!]) }
        #expect(throws: DatabaseError.self) { try store.queuedResources(token: "q") }
    }

    @Test(arguments: Engine.allCases) func bytesRemainingSumsActiveTitlesWithoutGoingBelowZero(_ engine: Engine) throws
    {
        let store = try engine.store()
        for token in ["a", "b", "done"] {
            var t = title(token)
            t.state = token == "done" ? .completed : .downloading
            try store.insert(t)
            try store.savePlan(token: token, plan: plan(2))  // estimate 1000 bytes each
        }
        var a = try store.resources(token: "a")[0]
        a.state = .verified
        a.bytes = 100
        try store.update(a)
        var b = try store.resources(token: "b")[0]
        b.state = .verified
        b.bytes = 5_000  // more than estimated: counts as nothing left, not as a negative
        try store.update(b)
        #expect(try store.bytesRemaining(states: [.downloading]) == 900)
        #expect(try store.bytesRemaining(states: [.downloading, .completed]) == 1_900)
        #expect(try store.bytesRemaining(states: []) == 0)
    }

    @Test(arguments: Engine.allCases) func planProgressAndRecovery(_ engine: Engine) throws {
        let store = try engine.store()
        try store.insert(title("t1"))
        try store.savePlan(token: "t1", plan: plan(4))
        var resources = try store.resources(token: "t1")
        #expect(resources.count == 4)
        resources[0].state = .verified
        resources[0].bytes = 100
        resources[1].state = .fetching
        resources[2].state = .verifying
        resources[2].bytes = 50
        for r in resources { try store.update(r) }
        #expect(try store.progress(token: "t1") == Store.Progress(verified: 1, total: 4, bytesVerified: 100))
        #expect(try store.recoverInterruptedWork() == 2)
        let states = try store.resources(token: "t1").map(\.state)
        #expect(states == [.verified, .pending, .fetched, .pending])
        #expect(try store.stateCounts(token: "t1") == [.verified: 1, .pending: 2, .fetched: 1])
        #expect(try store.progressByTitle()["t1"]?.total == 4)
        #expect(try store.resources(token: "t1", state: .pending).map(\.position) == [1, 3])
        #expect(try store.hasResources(token: "t1", in: [.fetched]))
        #expect(try !store.hasResources(token: "t1", in: [.fetching, .verifying]))
    }

    /// A fetch batch's files in one read: each record whole, by its id; an id with no resource is left out.
    @Test(arguments: Engine.allCases) func resourcesByIDAreReadWholeAndUnknownIDsLeftOut(_ engine: Engine) throws {
        let store = try engine.store()
        try store.insert(title("t1"))
        try store.insert(title("t2"))
        try store.savePlan(token: "t1", plan: plan(4))
        try store.savePlan(token: "t2", plan: plan(2))
        let first = try store.resources(token: "t1")
        let second = try store.resources(token: "t2")
        let wanted = [first[3].id!, second[0].id!, first[1].id!, 999_999]
        let byID = try store.resources(ids: wanted)
        #expect(byID.count == 3)
        #expect(byID[first[3].id!] == first[3] && byID[first[1].id!] == first[1] && byID[second[0].id!] == second[0])
        #expect(byID[999_999] == nil)
        #expect(try store.resources(ids: []).isEmpty)
        // More ids than one statement takes: read in parts, every one found.
        try store.insert(title("t3"))
        try store.savePlan(token: "t3", plan: plan(1_203))
        let many = try store.resources(token: "t3")
        let all = try store.resources(ids: many.map { $0.id! }.reversed())
        #expect(all.count == 1_203 && many.allSatisfy { all[$0.id!] == $0 })
    }

    /// The plan's files are stored column for column (the prepared insert), and a file verified as it arrived
    /// is recorded by one statement, inside a batch too.
    @Test(arguments: Engine.allCases) func plannedFilesAreStoredWholeAndVerifiedOneByOne(_ engine: Engine) throws {
        let store = try engine.store()
        try store.insert(title("t1"))
        var planned = plan(3)
        planned.resources[1].rangeOffset = 100
        planned.resources[1].rangeLength = 50
        planned.resources[2].alternates = ["http://mirror/2.ts", "http://other/2.ts"]
        planned.resources[2].encrypted = true
        planned.resources[2].kind = .initSection
        planned.resources[2].container = .fmp4
        try store.savePlan(token: "t1", plan: planned)
        let stored = try store.resources(token: "t1")
        #expect(stored.map(\.position) == [0, 1, 2])
        #expect(stored.allSatisfy { $0.state == .pending && $0.attempts == 0 && $0.token == "t1" })
        #expect(stored[1].rangeOffset == 100 && stored[1].rangeLength == 50 && stored[0].rangeOffset == nil)
        #expect(stored[2].alternates == ["http://mirror/2.ts", "http://other/2.ts"] && stored[0].alternates == nil)
        #expect(stored[2].encrypted && stored[2].kind == .initSection && stored[2].container == .fmp4)
        #expect(stored[0].url == "http://h/0.ts" && stored[0].localPath == "video/seg-0.ts" && stored[0].duration == 2)
        var failed = stored[0]
        failed.lastError = "an earlier attempt failed"
        try store.update(failed)
        try store.batch {
            try? store.markVerified(id: stored[0].id!, bytes: 1234, contentLength: 1234, sha256: "ab12")
        }
        try store.markVerified(id: stored[1].id!, bytes: 50, contentLength: nil, sha256: "cd34")
        let after = try store.resources(token: "t1")
        #expect(after[0].state == .verified && after[0].bytes == 1234 && after[0].contentLength == 1234)
        #expect(after[0].sha256 == "ab12" && after[0].lastError == nil)
        #expect(after[1].state == .verified && after[1].sha256 == "cd34" && after[1].contentLength == nil)
        #expect(after[2].state == .pending)
        #expect(try store.progress(token: "t1") == Store.Progress(verified: 2, total: 3, bytesVerified: 1284))
    }

    @Test(arguments: Engine.allCases) func deleteCascades(_ engine: Engine) throws {
        let store = try engine.store()
        try store.insert(title("t1"))
        try store.savePlan(token: "t1", plan: plan(2))
        try store.delete(token: "t1")
        #expect(try store.resources(token: "t1").isEmpty)
        #expect(try store.title("t1") == nil)
    }

    @Test(arguments: Engine.allCases) func liveTitleIgnoresFailedAndCanceled(_ engine: Engine) throws {
        let store = try engine.store()
        var t = title("t1")
        t.state = .failed
        try store.insert(t)
        #expect(try store.liveTitle(url: "http://h/m.m3u8") == nil)
        try store.insert(title("t2"))
        #expect(try store.liveTitle(url: "http://h/m.m3u8")?.token == "t2")
    }

    @Test(arguments: Engine.allCases) func typedColumnsAreStoredAsTheirRawValues(_ engine: Engine) throws {
        let store = try engine.store()
        var t = title("t1")
        t.state = .suspended
        t.suspendedReason = .diskFull
        try store.insert(t)
        try store.savePlan(token: "t1", plan: plan(1))
        try store.putBookmark(BookmarkRecord(token: "t1", kind: .user, position: 3, label: "here"))
        let row = try store.db.read { db in
            try db.rows(
                """
                SELECT title.state, title.suspendedReason, resource.kind, resource.container, resource.state AS rs,
                       rendition.kind AS rk, bookmark.kind AS bk
                FROM title JOIN resource USING (token) JOIN rendition USING (token) JOIN bookmark USING (token)
                """
            ).first
        }
        #expect(row?["state"] == "suspended")
        #expect(row?["suspendedReason"] == "disk-full")
        #expect(row?["kind"] == "segment")
        #expect(row?["container"] == "ts")
        #expect(row?["rs"] == "pending")
        #expect(row?["rk"] == "video")
        #expect(row?["bk"] == "user")
        #expect(try store.title("t1")?.suspendedReason == .diskFull)
        #expect(try store.titleState("t1") == .suspended)
        #expect(try store.titles(state: .suspended).map(\.token) == ["t1"])
        #expect(try store.titles(state: .requested).isEmpty)
        #expect(try store.titleCounts() == [.suspended: 1])
    }

    @Test(arguments: Engine.allCases) func unknownStoredValuesReadAsBefore(_ engine: Engine) throws {
        let store = try engine.store()
        try store.insert(title("t1"))
        try store.savePlan(token: "t1", plan: plan(1))
        try store.db.write { db in
            try db.execute("UPDATE title SET state = 'from-the-future'")
            try db.execute("UPDATE resource SET state = 'from-the-future', container = 'from-the-future'")
        }
        #expect(try store.title("t1")?.state == .failed)
        #expect(try store.titleState("t1") == .failed)
        let r = try store.resources(token: "t1")
        #expect(r.map(\.state) == [.pending])
        #expect(r.map(\.container) == [.other])
    }

    @Test(arguments: Engine.allCases) func bookmarksOfTheSourceAreKeptApartFromTheUsers(_ engine: Engine) throws {
        let store = try engine.store()
        try store.insert(title("t1"))
        var p = plan(1)
        p.bookmarks = [Bookmark(position: 5, label: "chapter")]
        try store.savePlan(token: "t1", plan: p)
        try store.putBookmark(BookmarkRecord(token: "t1", kind: .user, position: 5, label: "mine"))
        #expect(try store.bookmarks(token: "t1").map(\.kind) == [.index, .user])
        #expect(try !store.removeBookmark(token: "t1", position: 4))
        #expect(try store.removeBookmark(token: "t1", position: 5))
        #expect(try store.bookmarks(token: "t1").map(\.kind) == [.index])
        // A new plan replaces the source's bookmarks only.
        try store.putBookmark(BookmarkRecord(token: "t1", kind: .user, position: 1, label: "again"))
        try store.savePlan(token: "t1", plan: plan(1))
        #expect(try store.bookmarks(token: "t1").map(\.kind) == [.user])
    }

    @Test(arguments: Engine.allCases) func refreshedURLsKeepStatesAndKeysTakeNewURIs(_ engine: Engine) throws {
        let store = try engine.store()
        try store.insert(title("t1"))
        var p = plan(2)
        p.keys = [PlannedKey(uri: "http://h/k1", method: "AES-128")]
        try store.savePlan(token: "t1", plan: p)
        var first = try #require(try store.resources(token: "t1").first)
        first.state = .verified
        try store.update(first)
        try store.saveWrappedKeys(token: "t1", [0: Data([1, 2, 3])])
        var fresh = p
        fresh.resources = p.resources.map {
            var r = $0
            r.url += "?sig=2"
            return r
        }
        fresh.keys = [PlannedKey(uri: "http://h/k1?sig=2", method: "AES-128")]
        fresh.renditions[0].sourceURL = "http://h/v.m3u8?sig=2"
        #expect(try store.refreshURLs(token: "t1", plan: fresh) == 2)
        #expect(try store.resources(token: "t1").map(\.state) == [.verified, .pending])
        #expect(try store.keys(token: "t1").map(\.uri) == ["http://h/k1?sig=2"])
        #expect(try store.keys(token: "t1").map(\.wrapped) == [Data([1, 2, 3])])
        #expect(try store.renditions(token: "t1").map(\.sourceURL) == ["http://h/v.m3u8?sig=2"])
        try store.resetResources(token: "t1")
        #expect(try store.resources(token: "t1").allSatisfy { $0.state == .pending && $0.bytes == nil })
    }

    @Test(arguments: Engine.allCases) func settings(_ engine: Engine) throws {
        let store = try engine.store()
        #expect(try store.setting("k") == nil)
        try store.setSetting("k", "1")
        try store.setSetting("k", "2")
        #expect(try store.setting("k") == "2")
        try store.removeSetting("k")
        #expect(try store.setting("k") == nil)
    }

    /// A database written before v8 keeps its license: the terms of titles licensed before v3 (only the
    /// columns were written then) become JSON, and the duplicated columns are gone.
    @Test func v8KeepsLicensesOfOlderDatabasesAndDropsTheDuplicatedColumns() throws {
        let dir = NSTemporaryDirectory() + "stowage-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/s.sqlite"
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v7-waiting")
        let terms = #"{"kind":"purchase","requestedAt":5,"forceExpired":false,"renewalSuggested":false}"#
        try old.write { db in
            let insert = """
                INSERT INTO title (token, url, state, selection, headers, requestedAt, planned,
                                   licenseKind, licenseRequestedAt, licenseExpiresAt, licenseTerms)
                VALUES (?, 'http://h/m.m3u8', 'completed', '{}', '[]', 1, 1, ?, ?, ?, ?)
                """
            try db.execute(sql: insert, arguments: ["pre-v3", "rental", 10.0, 20.0, nil])
            try db.execute(sql: insert, arguments: ["v3", "purchase", 5.0, nil, terms])
            try db.execute(sql: insert, arguments: ["unlicensed", nil, nil, nil, nil])
        }
        try old.close()
        let store = try Store(path: path)
        #expect(try store.appliedMigrations() == Self.migrations)
        let columns = try store.db.read { try $0.sqlite!.columns(in: "title").map(\.name) }
        #expect(!columns.contains("licenseKind"))
        #expect(!columns.contains("licenseRequestedAt"))
        #expect(!columns.contains("licenseExpiresAt"))
        struct Terms: Equatable {
            var kind: String
            var requestedAt: Double
            var expiresAt: Double?
            var forceExpired: Bool
            var renewalSuggested: Bool
        }
        func decoded(_ token: String) throws -> Terms? {
            try store.title(token)?.licenseTerms.map {
                Terms(
                    kind: $0.kind.rawValue, requestedAt: $0.requestedAt, expiresAt: $0.expiresAt,
                    forceExpired: $0.forceExpired, renewalSuggested: $0.renewalSuggested)
            }
        }
        #expect(
            try decoded("pre-v3")
                == Terms(
                    kind: "rental", requestedAt: 10, expiresAt: 20, forceExpired: false,
                    renewalSuggested: false))
        let stored = try store.db.read {
            try $0.value(String.self, "SELECT licenseTerms FROM title WHERE token = 'v3'")
        }
        #expect(stored == terms, "terms written since v3 are untouched")
        #expect(try decoded("unlicensed") == nil)
    }
}
