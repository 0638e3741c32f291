import Foundation
import StowageProtocol
import Testing

/// The files of a title filled from a peer, and this box's manifest for its peers, through the service in-process:
/// each file the peer's manifest hashes is fetched from the peer's gateway and must have that hash; a copy that
/// hashes otherwise or that the peer lacks comes from the origin.
extension PeerServiceTests {
    /// A title from the peer, planned from ``manifest(source:)`` and licensed: its fetches are queued.
    func plannedFromPeer(_ driver: ServiceDriver) throws -> String {
        driver.register("dl", .download)
        driver.register("lic", .license)
        let token = try submit(driver)
        driver.answer("dl", try driver.task(for: "dl"), .resolved(Self.manifest().fillPlan))
        driver.answer(
            "lic", try driver.task(for: "lic"),
            .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: driver.clock.now()))))
        return token
    }

    /// Every fetch the worker is sent at one pass of the loop, answered item by item by `respond`; answers the
    /// works it was sent.
    func fetchRound(_ driver: ServiceDriver, _ respond: (FetchWork) -> FetchItemResult) throws -> [FetchWork] {
        var seen: [FetchWork] = []
        for task in try driver.tasks(for: "dl") {
            switch task.work {
            case .fetch(let work):
                seen.append(work)
                switch respond(work) {
                case .fetched(let report): driver.answer("dl", task, .fetched(report))
                case .failed(let failure): driver.answer("dl", task, .failed(failure))
                case .notAttempted: throw DriverError("a single fetch is always attempted")
                }
            case .fetchBatch(let batch):
                seen += batch.items
                driver.answer("dl", task, .fetchedBatch(FetchBatchReport(results: batch.items.map(respond))))
            default:
                throw DriverError("not a fetch: \(task.work)")
            }
        }
        return seen
    }

    @Test func aPeersCopyThatHashesOtherwiseIsRemovedAndTheFileComesFromTheOrigin() throws {
        let driver = try ServiceDriver()
        let token = try plannedFromPeer(driver)
        // What the peer left of seg2.ts before its hash was found wrong.
        let left = driver.home.appendingPathComponent("titles/\(token)/seg2.ts")
        try FileManager.default.createDirectory(
            at: left.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not the peer's file".utf8).write(to: left)

        let first = try fetchRound(driver) { work in
            let hash = work.url.hasSuffix("seg2.ts") ? String(repeating: "ef", count: 32) : Self.hash
            return .fetched(FetchReport(bytes: 1_000, contentLength: 1_000, sha256: hash))
        }
        let byFile = Dictionary(uniqueKeysWithValues: first.map { ($0.path.split(separator: "/").last!, $0) })
        #expect(byFile["seg0.ts"]?.url == Self.peer.fileURL("seg0.ts"), "held by the peer: from its gateway")
        #expect(byFile["seg0.ts"]?.headers == [Self.peer.authorization], "with the peer secret only")
        #expect(byFile["seg1.ts"]?.url == Self.origin + "seg1.ts", "the peer lacks it: from the origin")
        #expect(byFile["seg1.ts"]?.headers.isEmpty == true)
        #expect(byFile["seg2.ts"]?.url == Self.peer.fileURL("seg2.ts"))

        let refused = try #require(try driver.store.resources(token: token).first { $0.localPath == "seg2.ts" })
        #expect(refused.peerSHA256 == nil && refused.state == .pending, "\(refused.state)")
        #expect(!FileManager.default.fileExists(atPath: left.path), "the peer's copy is removed")
        let events = try driver.store.events(token: token).map(\.detail)
        #expect(events.contains { $0.hasPrefix("seg2.ts from the origin: its SHA-256 efefefef") }, "\(events)")

        let second = try fetchRound(driver) { _ in .fetched(ServiceDriver.hashed(1_000)) }
        #expect(second.map(\.url) == [Self.origin + "seg2.ts"], "at once, from the origin")
        #expect(second.first?.headers.isEmpty == true, "the peer secret goes to the peer only")
        let status = try driver.status(token)
        #expect(status.state == .completed)
        #expect(status.filesFromPeer == 1 && status.filesFromOrigin == 2)
    }

    @Test func aFileThePeerLacksComesFromTheOriginAndAnUnreachablePeerIsRetried() throws {
        let driver = try ServiceDriver()
        let token = try plannedFromPeer(driver)
        let first = try fetchRound(driver) { work in
            if work.url.hasSuffix("seg0.ts") {
                return .failed(TaskFailure(code: .sourceGone, message: "answered 404", retryable: false))
            }
            if work.url.hasSuffix("seg2.ts") {
                return .failed(TaskFailure(code: .network, message: "connection reset", retryable: true))
            }
            return .fetched(ServiceDriver.hashed(1_000))
        }
        #expect(first.count == 3)
        let files = try driver.store.resources(token: token)
        #expect(files.map { $0.peerSHA256 != nil } == [false, false, true], "only the peer's answer sends it away")
        #expect(files.first?.lastError == "peer: answered 404")
        driver.advance(120)
        let second = try fetchRound(driver) { _ in .fetched(ServiceDriver.hashed(1_000)) }
        #expect(Set(second.map(\.url)) == [Self.origin + "seg0.ts", Self.peer.fileURL("seg2.ts")])
    }

    @Test func aTitlesManifestOffersItsPlanAndTheFilesThisBoxHoldsVerified() throws {
        let driver = try ServiceDriver()
        let token = try driver.licensedTitle(files: 3)
        _ = try fetchRound(driver) { work in
            work.url.hasSuffix("seg1.ts")
                ? .failed(TaskFailure(code: .network, message: "connection reset", retryable: true))
                : .fetched(ServiceDriver.hashed(1_000))
        }
        guard case .peerManifest(let manifest) = try driver.request(.peerManifest(token: token)) else {
            throw DriverError("no manifest")
        }
        #expect(manifest.token == token && manifest.source == "http://origin.test/show/master.m3u8")
        #expect(manifest.plan.reach == nil, "how far this box's fetches reach is its own")
        #expect(manifest.files.map(\.planned.localPath) == ["seg0.ts", "seg1.ts", "seg2.ts"])
        let hash = String(repeating: "ab", count: 32)
        #expect(manifest.files.map(\.sha256) == [hash, nil, hash], "only what is held verified is offered")
        #expect(manifest.files.map(\.size) == [1_000, nil, 1_000])

        let unplanned = try driver.submit("http://origin.test/later/master.m3u8")
        guard case .error(let early) = try driver.request(.peerManifest(token: unplanned)) else {
            throw DriverError("a title without a plan was offered")
        }
        #expect(early.code == .notFound && early.message.hasSuffix("has no plan yet: there is nothing to fill from"))
        guard case .error(let unknown) = try driver.request(.peerManifest(token: "nope")) else {
            throw DriverError("an unknown title was offered")
        }
        #expect(unknown.code == .notFound)
    }
}
