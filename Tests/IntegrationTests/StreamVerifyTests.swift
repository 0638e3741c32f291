import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Files are hashed and their containers checked while the bytes stream in (issue #13): a fetched file is
/// verified without the integrity worker reading it back, and a file whose structure is wrong never counts.
@Suite("Verification while downloading", .serialized)
struct StreamVerifyTests {
    /// Rows of `resource` for a title: state, SHA-256 and path, one line each (`|`-separated).
    func resources(_ h: Harness, _ token: String, where condition: String = "1") throws -> [[String]] {
        let store = h.home.appendingPathComponent("stowage.sqlite").path
        let (code, rows) = try TestMedia.shOutput(
            "sqlite3 '\(store)' \"SELECT state, ifnull(sha256, ''), localPath, ifnull(lastError, '') FROM resource "
                + "WHERE token = '\(token)' AND \(condition)\"",
            in: h.root)
        guard code == 0 else { throw HarnessError("sqlite3 failed: \(rows)") }
        return rows.split(separator: "\n").map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test func aTitleCompletesVerifiedWithNoIntegrityWorker() throws {
        let h = try Harness(name: "streamhash")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        try h.startScheduler()
        try h.startWorker("license")
        try h.startWorker("download")
        try h.waitUntil(timeout: 20, "two workers registered") { (try? h.workers().count) == 2 }
        let token = try h.submit("master.m3u8")
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.playableOffline)
        let rows = try resources(h, token)
        #expect(rows.count == final.segmentsTotal && rows.count > 3)
        let titleDir = h.home.appendingPathComponent("titles/\(token)")
        for row in rows {
            #expect(row[0] == "verified", "\(row)")
            let (_, sum) = try TestMedia.shOutput("sha256sum '\(row[2])' | cut -d' ' -f1", in: titleDir)
            #expect(row[1] == sum.trimmingCharacters(in: .whitespacesAndNewlines), "the recorded hash of \(row[2])")
        }
        // The hashes recorded while downloading are the ones checks at rest compare against.
        try h.startWorker("integrity")
        try h.waitUntil(timeout: 20, "integrity worker registered") { (try? h.workers().count) == 3 }
        #expect(try h.stowctl(["verify", token]).0 == 0)
    }

    @Test func aSegmentWithABrokenContainerIsNeverStored() throws {
        let h = try Harness(name: "badbox")
        try h.makeSample(seconds: 6)
        let folder = h.media.appendingPathComponent("v360p")
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".ts") || $0.hasSuffix(".m4s") }.sorted()
        let name = try #require(segments.dropFirst().first, "sample segments: \(segments)")
        let file = folder.appendingPathComponent(name)
        let good = try Data(contentsOf: file)
        // Served whole and with a matching Content-Length, but cut in the middle of a packet / box.
        try good.prefix(good.count - 100).write(to: file)
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("master.m3u8")
        var bad: [[String]] = []
        try h.waitUntil(timeout: 60, "the broken segment to be refused") {
            bad = (try? self.resources(h, token, where: "url LIKE '%/v360p/\(name)' AND lastError <> ''")) ?? []
            return !bad.isEmpty
        }
        #expect(
            bad[0][3].contains("v360p/\(name)") && bad[0][3].contains("188"), "names the file and the check: \(bad)")
        #expect(bad[0][0] != "verified")
        let stored = h.home.appendingPathComponent("titles/\(token)/\(bad[0][2])")
        #expect(!FileManager.default.fileExists(atPath: stored.path), "a refused file stays out of the title")
        #expect(try h.status(token).state != .completed)
        try good.write(to: file)  // the origin is mended: the retry stores the sound copy
        let final = try h.waitForFinal(token, timeout: 90)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(try Data(contentsOf: stored) == good)
    }
}
