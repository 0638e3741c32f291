import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// The playback component through the real service: the one playability verdict that `playable`, `play`, `key`,
/// `license` and `status` answer (files on disk, keys, the license's terms on the clock), a play authorised and
/// counted, a content key released only while the title is playable, and the bookmarks a player shows.
@Suite struct PlaybackComponentServiceTests {
    /// The title's folder, as the download workers would have filled it.
    static func folder(_ d: ServiceDriver, _ token: String) -> URL {
        d.home.appendingPathComponent("titles/\(token)")
    }

    /// Writes the files a completed title of `files` segments holds (the scheduler wrote its playlist).
    static func writeSegments(_ d: ServiceDriver, _ token: String, files: Int) throws {
        for i in 0..<files {
            try Data("segment \(i)".utf8).write(to: folder(d, token).appendingPathComponent("seg\(i).ts"))
        }
    }

    /// A completed title of 2 files under `terms`, its files on disk.
    static func completed(
        _ d: ServiceDriver, terms: GrantedTerms? = nil, source: String = "http://origin.test/show/"
    ) throws -> String {
        let token = try d.licensedTitle(files: 2, terms: terms, source: source)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        try writeSegments(d, token, files: 2)
        return token
    }

    static func verdict(_ d: ServiceDriver, _ operation: ClientOperation) throws -> PlayAuthorization {
        let reply = try d.request(operation)
        guard case .play(let verdict) = reply else { throw DriverError("\(operation) answered \(reply)") }
        return verdict
    }

    static func report(_ d: ServiceDriver, _ token: String) throws -> LicenseReport {
        let reply = try d.request(.license(token: token))
        guard case .license(let report) = reply else { throw DriverError("license answered \(reply)") }
        return report
    }

    static func error(_ d: ServiceDriver, _ operation: ClientOperation) throws -> TitleError {
        let reply = try d.request(operation)
        guard case .error(let error) = reply else { throw DriverError("\(operation) was not refused: \(reply)") }
        return error
    }

    @Test func playablePlayLicenseAndStatusGiveOneVerdictAndAMissingFileRefusesThemAll() throws {
        let d = try ServiceDriver()
        let token = try Self.completed(d)
        let ok = try Self.verdict(d, .playable(token: token))
        #expect(ok.playable && ok.notPlayable == nil)
        #expect(ok.directory == Self.folder(d, token).path)
        #expect(ok.entryPlaylist == "media.m3u8")
        #expect(try Self.report(d, token).playable)
        #expect(try d.status(token).playableOffline)
        // A file of the offline copy goes missing: every thorough answer says so, with the same reason.
        try FileManager.default.removeItem(at: Self.folder(d, token).appendingPathComponent("seg1.ts"))
        let missing = try Self.verdict(d, .playable(token: token))
        #expect(!missing.playable && missing.notPlayable?.code == .filesMissing)
        #expect(missing.reason == "files of the offline copy are missing")
        let play = try Self.verdict(d, .play(token: token))
        #expect(!play.playable && play.notPlayable?.code == .filesMissing)
        #expect(try d.store.title(token)?.playCount == 0, "a refused play is not counted")
        #expect(try !d.store.events(token: token).contains { $0.kind == "play" })
        let report = try Self.report(d, token)
        #expect(!report.playable && report.reason == "files of the offline copy are missing")
        // Its entry playlist gone too: even the cheap check of `status` sees it.
        try FileManager.default.removeItem(at: Self.folder(d, token).appendingPathComponent("media.m3u8"))
        let status = try d.status(token)
        #expect(!status.playableOffline && status.notPlayableReason?.code == .filesMissing)
    }

    @Test func aPlayIsCountedAndNoPlayStartsOnceThePlaysAreUsed() throws {
        let d = try ServiceDriver()
        let token = try Self.completed(
            d, terms: GrantedTerms(kind: .purchase, requestedAt: d.clock.now(), playCount: 2))
        d.advance(5)
        let first = try Self.verdict(d, .play(token: token))
        #expect(first.playable && first.directory == Self.folder(d, token).path)
        let played = try #require(try d.store.title(token))
        #expect(played.playCount == 1 && played.firstPlayedAt == d.clock.now() && played.lastPlayedAt == d.clock.now())
        d.advance(5)
        #expect(try Self.verdict(d, .play(token: token)).playable)
        let title = try #require(try d.store.title(token))
        #expect(title.playCount == 2 && title.firstPlayedAt == played.firstPlayedAt)
        #expect(title.lastPlayedAt == d.clock.now())
        #expect(
            try d.store.events(token: token).filter { $0.kind == "play" }.map(\.detail) == [
                "play 1 authorised", "play 2 authorised",
            ])
        // Both plays used: no play starts, and every answer that starts one says why.
        let third = try Self.verdict(d, .play(token: token))
        #expect(!third.playable && third.notPlayable?.code == .licenseUsedUp)
        #expect(third.reason == "all 2 plays are used")
        #expect(try d.store.title(token)?.playCount == 2)
        #expect(try Self.verdict(d, .playable(token: token)).notPlayable?.code == .licenseUsedUp)
        #expect(try d.status(token).notPlayableReason?.code == .licenseUsedUp)
    }

    @Test func aRentalAndItsPlayDurationEndOnTheClock() throws {
        let d = try ServiceDriver()
        let terms = GrantedTerms(
            kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 3_600, playDurationSeconds: 600)
        let token = try Self.completed(d, terms: terms)
        #expect(try Self.verdict(d, .play(token: token)).playable)  // the play duration counts from here
        d.advance(599)
        #expect(try Self.verdict(d, .playable(token: token)).playable)
        d.advance(2)
        let ended = try Self.verdict(d, .playable(token: token))
        #expect(!ended.playable && ended.notPlayable?.code == .licenseExpired)
        #expect(ended.reason == "the play duration ended (600 s after the first play)")
        #expect(try d.status(token).notPlayableReason?.code == .licenseExpired)
        // Another rental, never played: it plays until the rental's end, not a second longer.
        let other = try Self.completed(
            d, terms: GrantedTerms(kind: .rental, requestedAt: 0, expiresAt: d.clock.now() + 60),
            source: "http://origin.test/other/")
        d.advance(59)
        #expect(try Self.verdict(d, .playable(token: other)).playable)
        d.advance(1)
        let expired = try Self.verdict(d, .play(token: other))
        #expect(!expired.playable && expired.reason == "the rental expired")
        #expect(try d.store.title(other)?.playCount == 0)
    }

    @Test func aContentKeyIsReleasedOnlyWhileTheTitleIsPlayable() throws {
        let d = try ServiceDriver()
        d.register("dl", .download)
        d.register("lic", .license)
        let token = try d.submit()
        var plan = ServiceDriver.plan(files: 2)
        plan.keys = [PlannedKey(uri: "http://origin.test/show/key.bin", method: "AES-128")]
        d.answer("dl", try d.task(for: "dl"), .resolved(plan))
        let key = Data((0..<16).map { UInt8($0 * 7) })
        let rental = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 3_600)
        d.answer(
            "lic", try d.task(for: "lic"), .licensed(LicenseGrant(terms: rental, keys: [key.base64EncodedString()])))
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        try Self.writeSegments(d, token, files: 2)
        #expect(try d.request(.key(token: token, index: 0)) == .key(key.base64EncodedString()))
        let unknown = try Self.error(d, .key(token: token, index: 1))
        #expect(unknown.code == .license && unknown.message == "title \(token) has no key 1")
        d.advance(3_601)
        let refused = try Self.error(d, .key(token: token, index: 0))
        #expect(refused.code == .license && refused.message == "key refused: the rental expired")
    }

    @Test func aTitleStillDownloadingIsNotPlayableOfflineButAPlayStreamsIt() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 3)
        let first = try #require(try d.tasks(for: "dl").first)
        try d.fetchedAll("dl", first)
        #expect(try d.state(token) == .downloading)
        let offline = try Self.verdict(d, .playable(token: token))
        #expect(!offline.playable && offline.notPlayable?.code == .downloading)
        #expect(try d.status(token).notPlayableReason?.code == .downloading)
        let play = try Self.verdict(d, .play(token: token))
        #expect(play.playable, "\(play)")
        let plan = try #require(play.streaming)
        #expect(plan.sources.map(\.url) == (0..<3).map { "http://origin.test/show/seg\($0).ts" })
        #expect(try d.store.title(token)?.playCount == 1)
    }

    @Test func aCopyThatFailedVerificationIsRefusedWithWhatFailed() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let token = try Self.completed(d)
        _ = try d.request(.verify(token: token, repair: false))
        for _ in 0..<4 where try d.state(token) == .verifying {
            for task in try d.tasks(for: "int") {
                d.answer("int", task, .verified(VerifyReport(ok: false, reason: "bad bytes")))
            }
        }
        let corrupt = try Self.verdict(d, .playable(token: token))
        #expect(!corrupt.playable && corrupt.notPlayable?.code == .filesCorrupt)
        let recorded = try d.store.title(token)?.errorMessage
        #expect(corrupt.reason == recorded && corrupt.reason?.contains("2 file(s)") == true, "\(corrupt)")
        #expect(try Self.verdict(d, .play(token: token)).notPlayable?.code == .filesCorrupt)
    }

    @Test func anUnknownTitleIsNotFoundForEveryPlaybackOperation() throws {
        let d = try ServiceDriver()
        let nobody = "0123456789abcdef"
        let operations: [ClientOperation] = [
            .playable(token: nobody), .play(token: nobody), .key(token: nobody, index: 0),
            .bookmarks(token: nobody), .bookmarkAdd(token: nobody, position: 1, label: "x"),
            .bookmarkRemove(token: nobody, position: 1),
        ]
        for operation in operations {
            let error = try Self.error(d, operation)
            #expect(error.code == .notFound && error.message.contains("stowctl list"), "\(operation): \(error)")
        }
    }

    @Test func bookmarksKeepTheSourcesIndexAndTheUsersOwn() throws {
        let d = try ServiceDriver()
        var plan = ServiceDriver.plan(files: 1)
        plan.bookmarks = [Bookmark(position: 30, label: "Chapter 2")]
        let token = try d.licensedTitle(plan: plan)
        let long = String(repeating: "a", count: 300)
        guard case .bookmarks(let added) = try d.request(.bookmarkAdd(token: token, position: 12.5, label: long))
        else { throw DriverError("bookmarkAdd did not answer the bookmarks") }
        #expect(added.map(\.position) == [12.5, 30])
        #expect(added.first?.kind == .user && added.first?.label.count == 200, "a label is cut at 200 characters")
        #expect(added.last == Bookmark(position: 30, label: "Chapter 2", kind: .index))
        for bad in [-1, -0.001] {
            let refused = try Self.error(d, .bookmarkAdd(token: token, position: bad, label: "x"))
            #expect(refused.code == .refused && refused.message.contains("seconds from the start"), "\(bad)")
        }
        let index = try Self.error(d, .bookmarkRemove(token: token, position: 30))
        #expect(index.code == .refused)
        #expect(index.message == "the bookmark at 30.0 s came with the source and cannot be removed")
        let none = try Self.error(d, .bookmarkRemove(token: token, position: 7))
        #expect(none.message == "no user bookmark at 7.0 s")
        guard case .bookmarks(let left) = try d.request(.bookmarkRemove(token: token, position: 12.5)) else {
            throw DriverError("bookmarkRemove did not answer the bookmarks")
        }
        #expect(left == [Bookmark(position: 30, label: "Chapter 2", kind: .index)])
        #expect(try d.request(.bookmarks(token: token)) == .bookmarks(left))
    }
}
