import Foundation
import StowageCatalog
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
        let (code, out) = try h.stowctl(["catalog", "status", "--json"])
        return code == 0 ? try? JSONDecoder().decode(CatalogReport.self, from: Data(out.utf8)) : nil
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
        // A client asks all along, one `stowctl list` after another, each timed: a pass that held the loop shows as
        // one slow answer.
        let latencies = h.root.appendingPathComponent("latencies")
        let stowctl = h.bin.appendingPathComponent("stowctl").path
        try h.spawn(
            "lister", "/bin/bash",
            [
                "-c",
                "while true; do s=$(date +%s.%N); '\(stowctl)' list --state completed >/dev/null; "
                    + "echo \"$s $(date +%s.%N)\" >> '\(latencies.path)'; done",
            ])
        let started = Date()
        try h.waitUntil(timeout: 240, "every entry of the large catalogue submitted") {
            let report = try Self.report(h)
            return report?.version == 2 && report?.entries.filter({ $0.token != nil }).count == CatalogLimits.maxEntries
        }
        h.kill9("lister")  // bash started from the test runner has SIGTERM blocked
        let answers = ((try? String(contentsOf: latencies, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            line -> Double? in
            let times = line.split(separator: " ").compactMap { Double($0) }
            return times.count == 2 ? times[1] - times[0] : nil
        }
        let slowest = answers.max() ?? .infinity
        print(
            "catalogue of \(CatalogLimits.maxEntries) titles applied in \(Int(Date().timeIntervalSince(started))) s; "
                + "\(answers.count) stowctl list answers meanwhile, the slowest in \(slowest) s")
        #expect(answers.count > 10)
        // Slicing is proven in the service test (CatalogSliceServiceTests); here, on real processes, that every
        // answer came well within stowctl's own wait (a catalogue applied in one pass held 100,000 titles' worth).
        #expect(slowest < 5, "stowctl list took \(slowest) s while the catalogue applied")

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
