import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// A catalogue's size is bounded and a large one is applied in slices, against the real scheduler: a catalogue of
/// 100,000 titles is refused (`catalog status` says why) while `stowctl list` answers; one of the most titles
/// allowed is applied while `stowctl list` keeps answering; a normal title completes afterwards and SIGTERM stops the
/// scheduler with 0.
@Suite("Catalogue size", .serialized)
struct CatalogSizeTests {
    static func catalogue(version: Int, titles: Int) -> Data {
        var text = "{\"version\": \(version), \"titles\": ["
        text += (0..<titles).map { "{\"id\": \"t\($0)\", \"url\": \"http://127.0.0.1:9/t\($0)/master.m3u8\"}" }
            .joined(separator: ",")
        return Data((text + "]}").utf8)
    }

    static func report(_ h: Harness) throws -> CatalogReport? {
        try timedReport(h).report
    }

    /// `catalog status` and the seconds it took.
    static func timedReport(_ h: Harness) throws -> (report: CatalogReport?, seconds: Double) {
        let start = Date()
        let (code, out) = try h.stowctl(["catalog", "status", "--json"])
        let report = code == 0 ? try? JSONDecoder().decode(CatalogReport.self, from: Data(out.utf8)) : nil
        return (report, Date().timeIntervalSince(start))
    }

    /// Seconds `stowctl list --state completed` took; fails the test when it failed.
    static func listSeconds(_ h: Harness) throws -> Double {
        let start = Date()
        let (code, out) = try h.stowctl(["list", "--state", "completed"])
        #expect(code == 0, "stowctl list failed: \(out)")
        return Date().timeIntervalSince(start)
    }

    @Test func aHugeCatalogueIsRefusedAndALargeOneAppliesInSlicesWhileTheSchedulerAnswers() throws {
        let h = try Harness(name: "catalog-size")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        let file = h.root.appendingPathComponent("catalog.json")
        try Self.catalogue(version: 1, titles: 100_000).write(to: file)
        try h.startPipeline(schedulerArguments: [
            "--catalog", file.path, "--catalog-interval", "1s", "--catalog-grace", "1s",
        ])
        try h.waitUntil(timeout: 30, "catalog status to refuse the 100,000-title catalogue") {
            try Self.report(h)?.lastError?.code == .tooLarge
        }
        #expect(try Self.listSeconds(h) < 5)

        // The most titles allowed: applied in slices; the scheduler answers all along.
        try Self.catalogue(version: 2, titles: CatalogLimits.maxEntries).write(to: file, options: .atomic)
        // Every request is timed (the scheduler answers one at a time: a pass that held the loop shows in whichever
        // request came during it).
        var (slowestList, slowestStatus, polls) = (0.0, 0.0, 0)
        let started = Date()
        try h.waitUntil(timeout: 240, "every entry of the large catalogue submitted") {
            slowestList = max(slowestList, try Self.listSeconds(h))
            let (report, seconds) = try Self.timedReport(h)
            slowestStatus = max(slowestStatus, seconds)
            polls += 1
            return report?.version == 2 && report?.entries.filter({ $0.token != nil }).count == CatalogLimits.maxEntries
        }
        print(
            "catalogue of \(CatalogLimits.maxEntries) titles applied in \(Int(Date().timeIntervalSince(started))) s; "
                + "slowest stowctl list \(slowestList) s, catalog status \(slowestStatus) s, \(polls) polls")
        #expect(slowestList < 3, "stowctl list took \(slowestList) s while the catalogue applied")
        #expect(slowestStatus < 4, "stowctl catalog status took \(slowestStatus) s while the catalogue applied")

        // A normal catalogue again: the large one's titles leave in slices, the new title completes.
        let small = "{\"version\": 3, \"titles\": [{\"id\": \"film\", \"url\": \"\(h.originURL)master.m3u8\"}]}"
        try Data(small.utf8).write(to: file, options: .atomic)
        var token: String?
        try h.waitUntil(timeout: 60, "the small catalogue's title submitted") {
            token = try Self.report(h)?.entries.first { $0.id == "film" }?.token
            return token != nil
        }
        #expect(try h.waitForFinal(try #require(token), timeout: 120).state == .completed)
        #expect(h.terminate("scheduler") == 0, "SIGTERM stops the scheduler")
    }
}
