import Foundation
import Logging
import ServiceLifecycle
import StowageProtocol
import StowageSchedulerService
import Synchronization
import Testing

/// `--catalog` beside the loop: what the fetcher posts to the feed is checked and applied at the catalogue's next
/// pass, a refusal goes back to the fetcher (it then forgets its ETag), and the fetcher is a service of the group,
/// stopped with it.
@Suite struct CatalogFeedServiceTests {
    static let location = "/srv/catalog.json"

    @Test func whatTheFetcherBringsIsAppliedAtTheNextPassAndARefusalGoesBackToIt() throws {
        let feed = CatalogFeed()
        let d = try ServiceDriver {
            $0.catalog.location = Self.location
            $0.catalog.feed = feed
        }
        let catalogue = CatalogServiceTests()
        feed.arrivals.post(.document(Data(CatalogServiceTests.document(version: 1, ids: ["a"])), signature: nil))
        d.advance(2.1)
        var report = try catalogue.report(d)
        #expect(report.version == 1 && report.source == Self.location && report.entries.map(\.id) == ["a"])
        #expect(try d.store.titles().count == 1)
        #expect(feed.refusals.isEmpty)

        // An older catalogue is refused, and the fetcher is told.
        feed.arrivals.post(.document(Data(CatalogServiceTests.document(version: 0, ids: ["b"])), signature: nil))
        d.advance(2.1)
        report = try catalogue.report(d)
        #expect(report.version == 1 && report.lastError?.code == .olderVersion)
        #expect(feed.refusals.take().map(\.code) == [.olderVersion])

        // Unreachable: said, but the fetcher holds nothing to forget.
        feed.arrivals.post(.failed("GET /srv/catalog.json failed"))
        d.advance(2.1)
        #expect(try catalogue.report(d).lastError?.code == .unreachable)
        #expect(feed.refusals.isEmpty)

        // Not modified: reachable again, the catalogue in force stays.
        feed.arrivals.post(.notModified)
        d.advance(2.1)
        report = try catalogue.report(d)
        #expect(report.lastError == nil && report.lastFetchAt != nil && report.version == 1)

        // What arrives waits for the next pass (every 2 s).
        feed.arrivals.post(.document(Data(CatalogServiceTests.document(version: 2, ids: ["a", "b"])), signature: nil))
        d.advance(1)
        #expect(try catalogue.report(d).version == 1)
        d.advance(1.1)
        #expect(try catalogue.report(d).version == 2)
        #expect(try d.store.titles().count == 2)
    }

    @Test func theFetcherIsAServiceOfTheGroupAndItsWaitEndsWithAGracefulShutdown() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cfs-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("catalog.json")
        let bytes = Data(CatalogServiceTests.document(version: 1, ids: ["a"]))
        try bytes.write(to: file)
        var logger = Logger(label: "catalog-fetcher-under-test")
        logger.logLevel = .critical
        let feed = CatalogFeed()
        // A refusal the loop sent back before: taken at the next read even of a file, which has no ETag to forget.
        feed.refusals.post(CatalogRefusal(.badSignature, "the signature does not match"))
        let fetcher = CatalogFetcher(
            location: file.path, interval: 3_600, feed: feed, logger: logger,
            limits: BodyLimits(minRate: BodyLimits.defaultMinRate, window: 30, total: BodyLimits.catalogTotal))
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [fetcher], logger: logger))
        let ended = Mutex(false)
        let running = Task {
            try await group.run()
            ended.withLock { $0 = true }
        }
        defer { running.cancel() }
        // The first read at once.
        try await Self.waitUntil("the fetcher read the file") { !feed.arrivals.isEmpty }
        #expect(feed.arrivals.take() == [.document(bytes, signature: nil)])
        #expect(feed.refusals.isEmpty, "the refusal was taken, not left to pile up")
        // An hour until the next read: a graceful shutdown ends the wait, and the group, at once.
        await group.triggerGracefulShutdown()
        try await Self.waitUntil("the group ended") { ended.withLock { $0 } }
        #expect(feed.arrivals.isEmpty, "nothing read after the shutdown")
    }

    /// Polls `condition`; `timeout` is generous because the synchronous suites beside this one may hold the few
    /// threads of the concurrency pool for seconds on a small machine.
    static func waitUntil(_ what: String, timeout: Double = 60, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw DriverError("timed out waiting: \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
