import Crypto
import Foundation
import StowageProtocol
import StowageStore
import Testing

/// `export` and `import` through the service: the request answers a running job at once, the copy runs beside the
/// loop, and the loop takes its end at a tick (docs/bundles.md).
@Suite struct BundleServiceTests {
    /// Ticks until the job has ended (the copying thread posted, the loop took it), at most 10 s.
    func ended(_ d: ServiceDriver, _ started: BundleJob) throws -> BundleJob {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            d.tick()
            let reply = try d.request(.bundleJob(id: started.id))
            guard case .bundleJob(let job) = reply else { throw DriverError("bundleJob answered \(reply)") }
            if job.state != .running { return job }
            usleep(10_000)
        }
        throw DriverError("job \(started.id) still running after 10 s")
    }

    func job(_ reply: ReplyBody) throws -> BundleJob {
        guard case .bundleJob(let job) = reply else { throw DriverError("answered \(reply) instead of a job") }
        return job
    }

    /// A completed title of two segments whose files are on disk; with `recorded`, the store holds their real
    /// hashes (as a download would), else the fake ones the driver's fetches reported.
    func completedTitle(_ d: ServiceDriver, recorded: Bool) throws -> String {
        let token = try d.licensedTitle(plan: ServiceDriver.namedPlan(files: 2))
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        let dir = d.home.appendingPathComponent("titles/\(token)")
        for resource in try d.store.resources(token: token) {
            let bytes = Data("segment \(resource.localPath) of \(token)".utf8)
            let url = dir.appendingPathComponent(resource.localPath)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
            guard recorded, let id = resource.id else { continue }
            let hash = Hex.encode(SHA256.hash(data: bytes))
            try d.store.markVerified(id: id, bytes: Int64(bytes.count), contentLength: nil, sha256: hash)
        }
        return token
    }

    @Test func aFileChangedAtRestIsNotExportedAndAMoveIsUndone() throws {
        let d = try ServiceDriver()
        let token = try completedTitle(d, recorded: false)
        let folder = d.home.appendingPathComponent("out").path
        let started = try job(
            try d.request(.exportTitle(BundleExportRequest(token: token, directory: folder, move: true))))
        // Given up at once, before a byte is copied.
        #expect(try d.status(token).notPlayableReason?.code == .transferred)
        let end = try ended(d, started)
        #expect(end.state == .failed && end.problem == BundleJob.Problem(code: "hash", file: "video/seg-000000.ts"))
        #expect(end.error?.code == .integrity && end.error?.message.contains("video/seg-000000.ts") == true)
        #expect(try d.status(token).notPlayableReason == nil, "the failed export gave the license back")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing half-written stays")
    }

    @Test func refusalsHaveTheirCodes() throws {
        let d = try ServiceDriver()
        guard case .error(let unknown) = try d.request(.exportTitle(.init(token: "nope", directory: "/tmp/x"))) else {
            throw DriverError("an unknown title was exported")
        }
        #expect(unknown.code == .notFound)
        let token = try d.licensedTitle(files: 2)
        guard case .error(let early) = try d.request(.exportTitle(.init(token: token, directory: "/tmp/x"))) else {
            throw DriverError("an unfinished title was exported")
        }
        #expect(early.code == .refused && early.message.contains("only a completed title"))
        guard case .error(let job) = try d.request(.bundleJob(id: "0")) else { throw DriverError("a job 0") }
        #expect(job.code == .notFound)
        guard case .error(let folder) = try d.request(.importBundle(.init(directory: "/nonexistent-bundle"))) else {
            throw DriverError("a missing folder was imported")
        }
        #expect(folder.code == .notFound && folder.message.contains("/nonexistent-bundle"))
        // A completed title whose file is gone is refused before anything is written, naming the file.
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        let out = d.home.appendingPathComponent("out").path
        guard case .error(let missing) = try d.request(.exportTitle(.init(token: token, directory: out))) else {
            throw DriverError("a title with missing files was exported")
        }
        #expect(missing.code == .integrity && missing.message.hasPrefix("seg0.ts of title"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func anImportIsRegisteredCompletedThroughTheLifecycleInOneStep() throws {
        let a = try ServiceDriver()
        let token = try completedTitle(a, recorded: true)
        let folder = a.home.appendingPathComponent("bundle").path
        let exported = try ended(a, try job(try a.request(.exportTitle(.init(token: token, directory: folder)))))
        #expect(exported.state == .done && exported.bytesDone == exported.bytesTotal && exported.bytesTotal > 0)
        guard case .boxKey(let keyA) = try a.request(.boxKey) else { throw DriverError("no box key") }

        let b = try ServiceDriver()
        let imported = try ended(b, try job(try b.request(.importBundle(.init(directory: folder, trusted: [keyA])))))
        // Always a token of B's own: the bundle's names nothing here.
        let tokenB = try #require(imported.token)
        #expect(imported.state == .done && tokenB != token, "\(imported)")
        #expect(try b.state(tokenB) == .completed)
        #expect(try b.moves(tokenB) == ["requested -> completed"])
        let here = try b.store.resources(token: tokenB)
        #expect(here.map(\.sha256) == (try a.store.resources(token: token)).map(\.sha256))
        #expect(here.allSatisfy { $0.state == .verified })
        #expect(try b.status(tokenB).playableOffline)
        // The same bundle again (not a --move): another copy, another token.
        let again = try ended(b, try job(try b.request(.importBundle(.init(directory: folder, trustAny: true)))))
        #expect(again.state == .done && again.token != tokenB && again.token != nil)
        // Nothing staged stays under titles/.
        let names = try FileManager.default.contentsOfDirectory(atPath: b.home.appendingPathComponent("titles").path)
        #expect(names.sorted() == [tokenB, again.token ?? ""].sorted())
        // A staging folder an interrupted import left behind goes at the next start.
        let stale = b.home.appendingPathComponent("titles/.import-0123456789abcdef")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: false)
        try b.restart()
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(try b.state(tokenB) == .completed)
    }

    /// Exports A's completed title with `change` made to it first; answers the bundle folder and A's box key
    /// (A's home, which holds the folder, lives as long as `a`).
    func exported(_ a: ServiceDriver, _ change: (inout TitleRecord) -> Void) throws -> (folder: String, key: String) {
        let token = try completedTitle(a, recorded: true)
        var title = try #require(try a.store.title(token))
        change(&title)
        try a.store.update(title)
        let folder = a.home.appendingPathComponent("bundle").path
        let exported = try ended(a, try job(try a.request(.exportTitle(.init(token: token, directory: folder)))))
        #expect(exported.state == .done, "\(exported)")
        guard case .boxKey(let key) = try a.request(.boxKey) else { throw DriverError("no box key") }
        return (folder, key)
    }

    @Test func theReachIsThisBoxsAndAnIdOfTheCatalogueIsNotTaken() throws {
        let a = try ServiceDriver()
        let (folder, key) = try exported(a) {
            $0.externalID = "a"
            $0.reach = .loopback  // A's word: B derives its own from the source URL
        }
        let b = try ServiceDriver()
        // B's catalogue lists "a"; the operator deleted the title it made, and the next pass has not run yet.
        let document = Array(
            #"{"version": 1, "titles": [{"id": "a", "url": "http://origin.test/a/master.m3u8"}]}"#.utf8)
        _ = try b.request(.catalogApply(document: Data(document).base64EncodedString(), signature: nil))
        b.tick()  // the periodic duties' first pass; the manual clock then holds the next catalogue pass off
        let member = try #require(try b.store.title(externalID: "a"))
        _ = try b.request(.delete(token: member.token))
        #expect(try b.store.title(externalID: "a") == nil)
        let refused = try ended(b, try job(try b.request(.importBundle(.init(directory: folder, trusted: [key])))))
        #expect(refused.state == .failed && refused.problem?.code == "taken", "\(refused)")
        #expect(refused.error?.code == .refused && refused.error?.message.contains("catalogue") == true)
        #expect(try b.store.titles().allSatisfy { $0.externalID != "a" }, "nothing of the bundle stays")

        // Without the catalogue entry the same bundle comes in, its reach left for this box to derive.
        let c = try ServiceDriver()
        let imported = try ended(c, try job(try c.request(.importBundle(.init(directory: folder, trusted: [key])))))
        let token = try #require(imported.token)
        let title = try #require(try c.store.title(token))
        #expect(title.externalID == "a" && title.reach == nil, "\(title)")
    }

    @Test func aMovedBundleIsTakenInOnceAndItsBytesAreCounted() throws {
        let a = try ServiceDriver()
        let token = try completedTitle(a, recorded: true)
        let folder = a.home.appendingPathComponent("bundle").path
        let request = BundleExportRequest(token: token, directory: folder, move: true)
        let exported = try ended(a, try job(try a.request(.exportTitle(request))))
        #expect(exported.state == .done && exported.moved, "\(exported)")
        guard case .boxKey(let key) = try a.request(.boxKey) else { throw DriverError("no box key") }

        let b = try ServiceDriver()
        let first = try ended(b, try job(try b.request(.importBundle(.init(directory: folder, trusted: [key])))))
        // The copying thread's reports: the total once the signature verified, then every chunk.
        #expect(first.state == .done && first.bytesTotal > 0 && first.bytesDone == first.bytesTotal, "\(first)")
        // Remembered in the transaction that took it in: the same moved license is not taken twice.
        let again = try ended(b, try job(try b.request(.importBundle(.init(directory: folder, trusted: [key])))))
        #expect(again.state == .failed && again.problem?.code == "replayed", "\(again)")
        #expect(again.error?.message.contains(first.token ?? "?") == true, "\(again)")
        #expect(try b.store.titles().count == 1, "nothing of the second import stays")
    }

    @Test func aMoveWhoseEndTheProcessDidNotSeeIsUndoneAtTheNextStart() throws {
        let d = try ServiceDriver()
        let token = try completedTitle(d, recorded: true)
        let folder = d.home.appendingPathComponent("bundle")
        let move = BundleExportRequest(token: token, directory: folder.path, move: true)
        #expect(try job(try d.request(.exportTitle(move))).moved)
        #expect(try d.status(token).notPlayableReason?.code == .transferred)
        // The copy ends on its thread, signed; the process stops before a tick takes that end.
        let signature = folder.appendingPathComponent("bundle.sig")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: signature.path), Date() < deadline { usleep(5_000) }
        #expect(FileManager.default.fileExists(atPath: signature.path), "the export wrote no bundle")
        try d.restart()
        // Neither lost (the license is back) nor held twice (no bundle of it stays).
        #expect(try d.status(token).notPlayableReason == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(try d.store.events(token: token).contains { $0.detail == "move undone: the export was interrupted" })
        let again = try ended(d, try job(try d.request(.exportTitle(move))))
        #expect(again.state == .done && again.moved, "\(again)")
        try d.restart()
        #expect(try d.status(token).notPlayableReason?.code == .transferred, "a move whose end was seen stands")
    }

    @Test func gcLeavesARunningImportsStagingFolderAlone() throws {
        let a = try ServiceDriver()
        let (folder, key) = try exported(a) { _ in }
        let b = try ServiceDriver()
        let started = try job(try b.request(.importBundle(.init(directory: folder, trusted: [key]))))
        // The copying thread makes the folder; until a tick takes the import's end, the import runs.
        let staging = b.home.appendingPathComponent("titles/.import-\(started.id)")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: staging.path), Date() < deadline { usleep(5_000) }
        #expect(FileManager.default.fileExists(atPath: staging.path), "the import staged nothing")
        guard case .removed(let removed) = try b.request(.gc) else { throw DriverError("gc answered otherwise") }
        #expect(removed.isEmpty, "\(removed)")
        #expect(FileManager.default.fileExists(atPath: staging.path))
        let end = try ended(b, started)
        #expect(end.state == .done, "\(end)")
        #expect(try b.state(try #require(end.token)) == .completed)
    }

    @Test func submitKeepsToTheSameRuleForIdsAndNames() throws {
        let d = try ServiceDriver()
        for (id, name) in [
            ("..", nil), ("a\u{0}b", nil), (nil, "two\nlines"), (nil, String(repeating: "n", count: 501)),
        ] {
            var submit = SubmitRequest(
                url: "http://origin.test/x/master.m3u8", name: name, priority: 0, headers: [], selection: Selection())
            submit.id = id
            guard case .error(let error) = try d.request(.submit(submit)) else {
                throw DriverError(
                    "submit took id \(String(describing: id)) name \(String(describing: name?.prefix(9)))")
            }
            #expect(error.code == .refused && error.message.hasPrefix(id == nil ? "--name" : "--id"), "\(error)")
        }
    }
}
