import Foundation
import StowageProtocol
import Testing

/// A title filled from a peer box, through the service in-process: the peer's manifest is fetched by the title's
/// resolve (a download worker), so a peer that cannot be reached is a network wait, and its plan comes with the
/// peer's hashes.
@Suite struct PeerServiceTests {
    static let peer = PeerSource(url: "http://box-a.test:8480", id: "film", secret: "s3cret")
    static let origin = "http://origin.test/film/"
    static let hash = String(repeating: "cd", count: 32)

    /// The peer's manifest of a 3-file title it holds but for the second file.
    static func manifest(source: String = origin + "master.m3u8") -> PeerManifest {
        let plan = ServiceDriver.plan(files: 3, source: origin)
        let files = plan.resources.enumerated().map { i, planned in
            PeerFile(planned: planned, size: i == 1 ? nil : 1_000, sha256: i == 1 ? nil : hash)
        }
        return PeerManifest(
            token: "a0", id: "film", name: "Film on A", source: source, entry: "master.m3u8", plan: plan, files: files)
    }

    /// `submit --from-peer`: the URL is the peer's manifest (stowctl does not know the source), or the origin's.
    func submit(_ driver: ServiceDriver, url: String = peer.manifestURL) throws -> String {
        var request = SubmitRequest(url: url, name: nil, priority: 0, headers: [], selection: Selection())
        request.peer = Self.peer
        guard case .submitted(let token) = try driver.request(.submit(request)) else {
            throw DriverError("the submit was refused")
        }
        return token
    }

    @Test func anUnreachablePeerSuspendsTheTitleForTheNetworkAndItsManifestPlansItWhenItAnswers() throws {
        let driver = try ServiceDriver { $0.maxAttempts = 2 }
        driver.register("dl", .download)
        driver.register("lic", .license)
        let token = try submit(driver)
        #expect(try driver.state(token) == .requested, "queued: nothing was fetched by the submit")

        // The resolve fetches the manifest with the peer secret; the peer does not answer.
        for attempt in 1...2 {
            let task = try driver.task(for: "dl")
            guard case .resolve(let work) = task.work else { throw DriverError("not a resolve: \(task.work)") }
            #expect(work.peer == true && work.url == Self.peer.manifestURL)
            #expect(work.headers == [Self.peer.authorization])
            #expect(task.scope?.source == Self.peer.manifestURL, "the network policy applies to the peer's URL")
            var failure = TaskFailure(
                code: .network, message: "connection refused by box-a.test:8480", retryable: true)
            failure.endpoint = "box-a.test:8480"
            driver.answer("dl", task, .failed(failure))
            if attempt == 1 { driver.advance(60) }
        }
        driver.tick()
        let waiting = try #require(try driver.store.title(token))
        #expect(waiting.state == .suspended && waiting.suspendedReason == .network, "\(waiting.state)")
        #expect(waiting.waitingHost == "box-a.test:8480")

        // The peer answers again (the probe resumes the title): its manifest is the plan, hashes and all.
        _ = try driver.request(.resume(token: token))
        let again = try driver.task(for: "dl")
        #expect(again.work == .resolve(try Self.resolveWork()))
        driver.answer("dl", again, .resolved(Self.manifest().fillPlan))
        let planned = try #require(try driver.store.title(token))
        #expect(planned.url == Self.origin + "master.m3u8", "the title's source is the manifest's")
        #expect(planned.name == "Film on A")
        #expect(planned.state == .licensing)
        let hashes = try driver.store.resources(token: token).map(\.peerSHA256)
        #expect(hashes == [Self.hash, nil, Self.hash], "the files the peer holds come from it")
    }

    static func resolveWork() throws -> ResolveWork {
        var work = ResolveWork(url: peer.manifestURL, headers: [peer.authorization], selection: Selection())
        work.peer = true
        return work
    }

    @Test func aTitleWhoseSourceIsKnownFallsBackToItsOriginWhenThePeerHasNoSuchCopy() throws {
        for answer in [
            Outcome.resolved(Self.manifest(source: "http://origin.test/other/master.m3u8").fillPlan),
            .failed(TaskFailure(code: .sourceGone, message: "answered 404", retryable: false)),
        ] {
            let driver = try ServiceDriver()
            driver.register("dl", .download)
            let token = try submit(driver, url: Self.origin + "master.m3u8")
            driver.answer("dl", try driver.task(for: "dl"), answer)
            let title = try #require(try driver.store.title(token))
            #expect(title.peer == nil && title.state == .requested, "\(answer)")
            let task = try driver.task(for: "dl")
            #expect(
                task.work == .resolve(ResolveWork(url: Self.origin + "master.m3u8", headers: [], selection: .init())))
        }
    }
}

extension PeerServiceTests {
    static func catalogue(credential: String) -> [UInt8] {
        Array(
            """
            {"version": 1, "titles": [
              {"id": "film", "url": "\(origin)master.m3u8",
               "sources": [{"peer": "http://box-a.test:8480", "credential": "\(credential)"}]}]}
            """.utf8)
    }

    @Test func aCatalogueEntryWithSourcesFillsFromThePeerWithTheSecretTheBoxKeeps() throws {
        let driver = try ServiceDriver()
        let peers = driver.home.appendingPathComponent("peers")
        try FileManager.default.createDirectory(at: peers, withIntermediateDirectories: true)
        try "s3cret\n".write(to: peers.appendingPathComponent("box-a.secret"), atomically: true, encoding: .utf8)
        try "http://box-a.test:8480\n".write(
            to: peers.appendingPathComponent("box-a.url"), atomically: true, encoding: .utf8)
        driver.register("dl", .download)
        let reply = try driver.request(
            .catalogApply(document: Data(Self.catalogue(credential: "box-a")).base64EncodedString(), signature: nil))
        guard case .catalog = reply else { throw DriverError("the catalogue was refused: \(reply)") }
        let title = try #require(try driver.store.title(externalID: "film"))
        #expect(title.peer?.url == Self.peer.url && title.peer?.id == "film")
        #expect(title.peer?.secret != "s3cret", "kept wrapped")
        #expect(title.url == Self.origin + "master.m3u8", "the entry's url: the source it must be a copy of")
        let task = try driver.task(for: "dl")
        #expect(task.work == .resolve(try Self.resolveWork()), "the peer's manifest, with the box's secret")
        driver.answer("dl", task, .resolved(Self.manifest().fillPlan))
        #expect(try driver.store.resources(token: title.token).map(\.peerSHA256) == [Self.hash, nil, Self.hash])
    }

    /// The secret is bound to the URL written beside it: a catalogue naming another origin for that credential (a
    /// loopback address, another port of the same host, the same host in clear) gets no secret sent anywhere; the
    /// title comes from its origin and its events say why. Without the URL file the secret is sent nowhere.
    @Test(arguments: [
        "http://127.0.0.1:8480", "http://box-a.test:9999", "https://box-a.test:8480", "http://evil.test:8480", nil,
    ])
    func aSecretGoesOnlyToThePeerURLItIsBoundTo(peer: String?) throws {
        let driver = try ServiceDriver()
        let peers = driver.home.appendingPathComponent("peers")
        try FileManager.default.createDirectory(at: peers, withIntermediateDirectories: true)
        try "s3cret\n".write(to: peers.appendingPathComponent("box-a.secret"), atomically: true, encoding: .utf8)
        if peer != nil {
            try "http://box-a.test:8480\n".write(
                to: peers.appendingPathComponent("box-a.url"), atomically: true, encoding: .utf8)
        }
        driver.register("dl", .download)
        let document = String(decoding: Self.catalogue(credential: "box-a"), as: UTF8.self)
            .replacingOccurrences(of: "http://box-a.test:8480", with: peer ?? "http://box-a.test:8480")
        _ = try driver.request(.catalogApply(document: Data(document.utf8).base64EncodedString(), signature: nil))
        let title = try #require(try driver.store.title(externalID: "film"))
        #expect(title.peer == nil, "no peer, no secret")
        let task = try driver.task(for: "dl")
        #expect(task.work == .resolve(ResolveWork(url: Self.origin + "master.m3u8", headers: [], selection: .init())))
        let events = try driver.store.events(token: title.token).map(\.detail)
        let expected = peer == nil ? "box-a.url is missing" : "belongs to http://box-a.test:8480"
        #expect(events.contains { $0.contains(expected) }, "\(events)")
    }

    @Test func withoutTheCredentialOnTheBoxTheEntryComesFromItsOrigin() throws {
        let driver = try ServiceDriver()
        driver.register("dl", .download)
        _ = try driver.request(
            .catalogApply(document: Data(Self.catalogue(credential: "box-a")).base64EncodedString(), signature: nil))
        let title = try #require(try driver.store.title(externalID: "film"))
        #expect(title.peer == nil)
        let task = try driver.task(for: "dl")
        #expect(task.work == .resolve(ResolveWork(url: Self.origin + "master.m3u8", headers: [], selection: .init())))
    }
}
