import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// A title named by its `--id` wherever a TOKEN goes (issue #41 item 7), through the real `stowctl` against a
/// real scheduler, workers and origin: the id reaches the same title as the token, an unknown id is `not-found`
/// naming it, and an id that could pass for a token is refused at submit.
@Suite("Title ids in place of tokens", .serialized)
struct TitleIdTests {
    /// The `--json` object of a command, decoded.
    func json<T: Decodable>(_ type: T.Type, _ h: Harness, _ arguments: [String]) throws -> T {
        let (code, out) = try h.stowctl(arguments + ["--json"])
        guard code == 0 else { throw HarnessError("stowctl \(arguments) exited \(code): \(out)") }
        return try JSONDecoder().decode(T.self, from: Data(out.utf8))
    }

    @Test func statusPauseResumeLicenseExportAndDeleteTakeTheId() throws {
        let h = try Harness(name: "ids")
        try h.makeSample(seconds: 8)
        try h.startOrigin(throttleBytesPerSecond: 150_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        // The highest variant at 150 kB/s: long enough to pause it half way.
        let token = try h.submit("master.m3u8", ["--id", "lecture-1", "--bitrate", "2000000", "--purchase"])
        // Another title, so that an id resolving to "some title" would be caught picking the wrong one.
        // (Another URL: a submit of the same URL reuses the unfinished title.)
        let other = try h.submit("v720p/index.m3u8", ["--id", "lecture-2", "--purchase"])
        #expect(other != token)
        // The same URL with other options is refused naming the title, not answered with its token.
        let again = try h.stowctlStreams(["submit", h.originURL + "master.m3u8", "--bitrate", "800000"])
        #expect(again.status == 1 && !again.stdout.contains(token), "\(again)")
        #expect(again.stderr.contains("is already title \(token)") && again.stderr.contains("--bitrate 800000"))

        let byID = try json(TitleStatus.self, h, ["status", "--id", "lecture-1"])
        #expect(byID.token == token && byID.id == "lecture-1")
        #expect(try json(TitleStatus.self, h, ["status", "--id", "lecture-2"]).token == other)

        try h.waitUntil(timeout: 60, "a file verified") { ((try? h.status(token))?.segmentsDone ?? 0) >= 1 }
        let paused = try h.stowctl(["pause", "--id", "lecture-1"])
        #expect(paused.0 == 0 && paused.1.contains("\(token) suspended"), "\(paused.1)")
        #expect(try h.status(token).state == .suspended)
        #expect(try h.status(other).state != .suspended, "only the title with the id was paused")
        #expect(try h.stowctl(["resume", "--id", "lecture-1"]).0 == 0)
        #expect(try h.status(token).state != .suspended)
        #expect(try h.waitForFinal(token, timeout: 180).state == .completed)

        let license = try json(LicenseReport.self, h, ["license", "--id", "lecture-1"])
        #expect(license == (try json(LicenseReport.self, h, ["license", token])))
        #expect(license.license?.kind == .purchase)

        let bundle = h.root.appendingPathComponent("bundle-by-id")
        let exported = try h.stowctlStreams(["export", "--id", "lecture-1", bundle.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("\(token): exported to \(bundle.path)"), "\(exported.stdout)")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("bundle.json").path))
        let twoFolders = try h.stowctlStreams(["export", "--id", "lecture-1", bundle.path, "another"])
        #expect(twoFolders.status == 2, "with --id, DIR only: \(twoFolders.stderr)")

        #expect(try h.stowctl(["bookmark", "add", "--id", "lecture-1", "0:05", "--label", "intro"]).0 == 0)
        let marks = try h.stowctl(["bookmark", "list", token, "--json"])
        #expect(marks.0 == 0 && marks.1.contains("intro"), "the bookmark went to the title with the id: \(marks.1)")

        let deleted = try h.stowctl(["delete", "--id", "lecture-1"])
        #expect(deleted.0 == 0 && deleted.1.contains("\(token) deleted"), "\(deleted.1)")
        #expect(try h.stowctl(["status", token]).0 == 1)
        #expect(try h.stowctl(["status", "--id", "lecture-1"]).0 == 1, "the id went with its title")
        #expect(try h.status(other).id == "lecture-2", "the other title stays")
    }

    @Test func anUnknownIdIsNotFoundNamingItAndTokenOrIdIsOneOfThem() throws {
        let h = try Harness(name: "ids-unknown")
        try h.startScheduler([])
        for command in ["status", "pause", "resume", "cancel", "delete", "license", "playable", "pin", "verify"] {
            let r = try h.stowctlStreams([command, "--id", "no-such-title"])
            #expect(r.status == 1, "\(command): \(r.stderr)")
            #expect(
                r.stderr.contains("[not-found]") && r.stderr.contains("no-such-title"),
                "\(command) names the code and the id: \(r.stderr)")
        }
        let both = try h.stowctlStreams(["status", "0123456789abcdef", "--id", "x"])
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let neither = try h.stowctlStreams(["pause"])
        #expect(neither.status == 2 && neither.stderr.contains("--id"), "\(neither.stderr)")
    }

    @Test func aTokenShapedIdIsRefusedAtSubmit() throws {
        let h = try Harness(name: "ids-shape")
        try h.makeSample(seconds: 2)
        try h.startOrigin()
        try h.startScheduler([])
        for id in ["0123456789abcdef", "0123456789ABCDEF"] {
            let r = try h.stowctlStreams(["submit", h.originURL + "master.m3u8", "--id", id])
            #expect(r.status == 2, "\(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("--id '\(id)' has the shape of a title token"), "\(r.stderr)")
        }
        #expect(try json([TitleStatus].self, h, ["list"]).isEmpty, "nothing was submitted")
        // Any other id is fine, and is found by it.
        let token = try h.submit("master.m3u8", ["--id", "0123456789abcdefg"])
        #expect(try json(TitleStatus.self, h, ["status", "--id", "0123456789abcdefg"]).token == token)
    }
}
