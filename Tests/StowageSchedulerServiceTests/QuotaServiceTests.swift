import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// `--quota` through the service: titles of 2 files (2,000 bytes each once verified) under a quota that holds two,
/// plays reported as the gateway reports them, the eviction and the `quota` wait on the manual clock.
@Suite struct QuotaServiceTests {
    /// Holds two titles of 2,000 bytes, not three.
    static let quota: Int64 = 4_500

    func driver(protect: Double = 600, notify feed: NotifyFeed? = nil) throws -> ServiceDriver {
        let d = try ServiceDriver {
            $0.quota = Self.quota
            $0.evictProtect = protect
            if let feed {
                $0.notify.receivers = [NotifyServiceTests.receiver]
                $0.notify.feed = feed
            }
        }
        d.register("dl", .download)
        d.register("lic", .license)
        d.advance(PlayActivity.startupBlindness + 1)  // after a start every title may be being played
        return d
    }

    /// Submits `name` and walks it to `completed`.
    func completed(_ d: ServiceDriver, _ name: String) throws -> String {
        let token = try submitted(d, name)
        let license = try d.task(for: "lic")
        d.answer("lic", license, .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: 0))))
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        return token
    }

    /// Submits `name` and answers its resolve with a plan of 2 files: it is then admitted, or not.
    func submitted(_ d: ServiceDriver, _ name: String) throws -> String {
        let source = "http://origin.test/\(name)/"
        let token = try d.submit(source + "master.m3u8")
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: 2, source: source)))
        return token
    }

    func play(_ d: ServiceDriver, _ token: String) throws {
        guard case .ok = try d.request(.played(token: token, seconds: 4)) else { throw DriverError("played refused") }
    }

    func evictable(_ d: ServiceDriver) throws -> [String] {
        guard case .titles(let order) = try d.request(.evictable) else { throw DriverError("evictable refused") }
        return order.map(\.token)
    }

    @Test func theThirdTitleEvictsTheLeastRecentlyPlayedOne() throws {
        let d = try driver(notify: NotifyFeed())
        let a = try completed(d, "a")
        let b = try completed(d, "b")
        try play(d, b)
        d.advance(10)
        try play(d, a)  // a was played after b
        d.advance(1_000)  // both plays are over and out of the protect window
        #expect(try evictable(d) == [b, a])
        let status = try d.status(a)
        #expect(status.lastPlayedAt != nil && status.pinned == false)
        let c = try submitted(d, "c")
        #expect(try d.state(c) == .licensing)
        #expect(try d.store.title(b) == nil)
        #expect(!FileManager.default.fileExists(atPath: d.home.appendingPathComponent("titles/\(b)").path))
        #expect(try d.state(a) == .completed)
        #expect(try d.store.events(token: c).contains { $0.kind == "evicted" && $0.detail.contains(b) })
        // `--notify` receivers hear of it, with the evicted title's last status.
        let evicted = try NotifyServiceTests.events(d.store).filter { $0.kind == .evicted }
        #expect(evicted.map(\.token) == [b] && evicted.first?.status?.state == .completed)
    }

    @Test func aPinnedTitleIsNeverEvicted() throws {
        let d = try driver()
        let a = try completed(d, "a")
        let b = try completed(d, "b")
        try play(d, b)
        d.advance(1_000)
        guard case .title(let pinned) = try d.request(.pin(token: a, pinned: true)) else {
            throw DriverError("pin refused")
        }
        #expect(pinned.pinned == true)
        #expect(try evictable(d) == [b])
        let c = try submitted(d, "c")
        #expect(try d.state(c) == .licensing)
        #expect(try d.store.title(b) == nil)  // b was played, a never: the pin keeps a
        #expect(try d.state(a) == .completed)
    }

    @Test func aTitleBeingPlayedIsNeverEvicted() throws {
        let d = try driver(protect: 0)  // only the play under way protects
        let a = try completed(d, "a")
        let b = try completed(d, "b")
        try play(d, b)
        d.advance(500)
        try play(d, a)  // a is being played now (reported seconds ago)
        d.advance(5)
        #expect(try evictable(d) == [b])
        let c = try submitted(d, "c")
        #expect(try d.state(c) == .licensing)
        #expect(try d.store.title(b) == nil)
        #expect(try d.state(a) == .completed)
    }

    @Test func nothingEvictableWaitsAsQuotaAndResumesWhenRoomAppears() throws {
        let d = try driver(protect: 600)
        let a = try completed(d, "a")
        let b = try completed(d, "b")
        d.advance(200)
        try play(d, a)
        try play(d, b)
        d.advance(200)  // the plays are over but within the protect window
        #expect(try evictable(d).isEmpty)
        let c = try submitted(d, "c")
        let waiting = try d.status(c)
        #expect(waiting.state == .suspended && waiting.suspendedReason == .quota)
        #expect(waiting.error?.code == .quota, "a quota wait has its own code, not disk-full")
        #expect(waiting.error?.message.contains("quota") == true)
        d.advance(60)
        #expect(try d.state(c) == .suspended)
        #expect(try d.store.title(a) != nil && d.store.title(b) != nil)
        guard case .ok = try d.request(.delete(token: b)) else { throw DriverError("delete refused") }
        d.advance(3)  // the 2 s disk timer finds room
        #expect(try d.state(c) == .licensing)
        #expect(try d.state(a) == .completed)
    }

    @Test func aWaitingTitleEvictsOnceTheProtectWindowEnds() throws {
        let d = try driver(protect: 600)
        let a = try completed(d, "a")
        let b = try completed(d, "b")
        try play(d, a)
        d.advance(100)
        try play(d, b)
        d.advance(100)
        let c = try submitted(d, "c")
        #expect(try d.status(c).suspendedReason == .quota)
        d.advance(450)  // a's play leaves the window, b's not yet
        #expect(try d.state(c) == .licensing)
        #expect(try d.store.title(a) == nil)
        #expect(try d.state(b) == .completed)
    }

    @Test func titlesTheCatalogueRemovedGoFirstAndItsPinnedOnesNever() throws {
        let d = try ServiceDriver { $0.quota = 6_500 }  // three titles of 2,000 bytes
        d.register("dl", .download)
        d.register("lic", .license)
        d.advance(PlayActivity.startupBlindness + 1)
        try applyCatalogue(d, version: 1, ["a": true, "b": false, "x": false])
        try completeEverything(d)
        let token = { (id: String) in try d.store.title(externalID: id)?.token ?? "?" }
        let (a, b, x) = (try token("a"), try token("b"), try token("x"))
        #expect(try d.status(a).pinned == true && d.status(b).pinned == false)
        try play(d, b)
        d.advance(10)
        try play(d, x)  // x was played after b, but it leaves the catalogue
        d.advance(4_000)
        try applyCatalogue(d, version: 2, ["a": true, "b": false])
        #expect(try evictable(d) == [x, b])
        let c = try submitted(d, "c")
        #expect(try d.state(c) == .licensing)
        #expect(try d.store.title(x) == nil)
        #expect(try d.state(b) == .completed && d.state(a) == .completed)
    }

    /// Applies a catalogue of these ids (and whether each is pinned), each at `http://origin.test/<id>/`.
    func applyCatalogue(_ d: ServiceDriver, version: Int, _ ids: [String: Bool]) throws {
        let titles = ids.sorted { $0.key < $1.key }.map { id, pinned in
            "{\"id\": \"\(id)\", \"url\": \"http://origin.test/\(id)/master.m3u8\", \"pinned\": \(pinned)}"
        }
        let document = "{\"version\": \(version), \"titles\": [\(titles.joined(separator: ", "))]}"
        let reply = try d.request(.catalogApply(document: Data(document.utf8).base64EncodedString(), signature: nil))
        guard case .catalog = reply else { throw DriverError("catalog apply answered \(reply)") }
    }

    /// Answers every resolve, license and fetch until nothing is sent (each plan of 2 files at the title's source).
    func completeEverything(_ d: ServiceDriver) throws {
        for _ in 0..<20 {
            let downloads = try d.tasks(for: "dl")
            let licenses = try d.tasks(for: "lic")
            if downloads.isEmpty && licenses.isEmpty { return }
            for task in downloads {
                if case .resolve(let work) = task.work {
                    let source = String(work.url.dropLast("master.m3u8".count))
                    d.answer("dl", task, .resolved(ServiceDriver.plan(files: 2, source: source)))
                } else {
                    try d.fetchedAll("dl", task)
                }
            }
            for task in licenses {
                d.answer("lic", task, .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: 0))))
            }
        }
    }
}
