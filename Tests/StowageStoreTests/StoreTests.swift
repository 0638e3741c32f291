import Foundation
import StowageProtocol
import Testing
@testable import StowageStore

@Suite("Store")
struct StoreTests {
    func plan(_ n: Int) -> ResolvedPlan {
        ResolvedPlan(masterPlaylist: "#EXTM3U\n", renditions: [PlannedRendition(kind: .video, sourceURL: "http://h/v.m3u8", localPath: "video/index.m3u8", playlist: "#EXTM3U\n")],
                     resources: (0..<n).map { PlannedResource(kind: .segment, rendition: 0, url: "http://h/\($0).ts", rangeOffset: nil, rangeLength: nil,
                                                              localPath: "video/seg-\($0).ts", container: .mpegTS, encrypted: false, duration: 2) },
                     bytesEstimate: 1000)
    }

    func title(_ token: String) -> TitleRecord {
        TitleRecord(token: token, url: "http://h/m.m3u8", name: nil, state: .requested, priority: 0, selection: "{}", headers: "[]", requestedAt: 1)
    }

    @Test func migratesAndUsesWAL() throws {
        let dir = NSTemporaryDirectory() + "stowage-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try Store(path: dir + "/s.sqlite")
        #expect(try store.appliedMigrations() == ["v1-initial", "v2-keys-and-plays", "v3-license-terms", "v4-key-systems", "v5-library", "v6-title-url-index", "v7-waiting"])
        try store.insert(title("t1"))
        // Re-opening applies nothing twice and keeps data.
        let again = try Store(path: dir + "/s.sqlite")
        #expect(try again.title("t1")?.url == "http://h/m.m3u8")
        #expect(FileManager.default.fileExists(atPath: dir + "/s.sqlite-wal"))
    }

    @Test func planProgressAndRecovery() throws {
        let store = try Store()
        try store.insert(title("t1"))
        try store.savePlan(token: "t1", plan: plan(4))
        var resources = try store.resources(token: "t1")
        #expect(resources.count == 4)
        resources[0].state = ResourceState.verified.rawValue
        resources[0].bytes = 100
        resources[1].state = ResourceState.fetching.rawValue
        resources[2].state = ResourceState.verifying.rawValue
        resources[2].bytes = 50
        for r in resources { try store.update(r) }
        #expect(try store.progress(token: "t1") == Store.Progress(verified: 1, total: 4, bytesVerified: 100))
        #expect(try store.recoverInterruptedWork() == 2)
        let states = try store.resources(token: "t1").map(\.resourceState)
        #expect(states == [.verified, .pending, .fetched, .pending])
        #expect(try store.stateCounts(token: "t1") == [.verified: 1, .pending: 2, .fetched: 1])
        #expect(try store.progressByTitle()["t1"]?.total == 4)
    }

    @Test func deleteCascades() throws {
        let store = try Store()
        try store.insert(title("t1"))
        try store.savePlan(token: "t1", plan: plan(2))
        try store.delete(token: "t1")
        #expect(try store.resources(token: "t1").isEmpty)
        #expect(try store.title("t1") == nil)
    }

    @Test func liveTitleIgnoresFailedAndCanceled() throws {
        let store = try Store()
        var t = title("t1")
        t.state = TitleState.failed.rawValue
        try store.insert(t)
        #expect(try store.liveTitle(url: "http://h/m.m3u8") == nil)
        try store.insert(title("t2"))
        #expect(try store.liveTitle(url: "http://h/m.m3u8")?.token == "t2")
    }
}
