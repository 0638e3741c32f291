import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Fill windows against the real processes, the scheduler's wall clock moved with libfaketime (its monotonic clock
/// stays real): nothing fetched before a window opens, a download stopped when it closes and carried on from the
/// bytes on disk when it opens again, `--now` fetching whatever the window says. The box is in Europe/Berlin.
@Suite("Fill windows", .serialized)
struct FillWindowIntegrationTests {
    static let zone = "Europe/Berlin"

    /// `HH:mm` of an instant in the box's zone (read with a formatter, not with the code under test).
    static func local(_ epoch: Double) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: zone)
        f.dateFormat = "HH:mm"
        return f.string(from: Date(timeIntervalSince1970: epoch))
    }

    static func iso(_ epoch: Double) -> String { Date(timeIntervalSince1970: epoch).formatted(.iso8601) }

    /// Sets the scheduler's wall clock so that it reads `fake` now; returns the real time at which it reads `at`.
    static func setClock(_ file: URL, reads fake: Double, at: Double = 0) throws -> Double {
        let offset = Int((fake - Date().timeIntervalSince1970).rounded())
        try "\(offset >= 0 ? "+" : "")\(offset)".write(to: file, atomically: true, encoding: .utf8)
        return at - Double(offset)
    }

    /// (time, path, range) of each request the origin logged.
    static func requests(_ h: Harness) -> [(at: Double, path: String, range: String)] {
        h.originLog().filter { $0.count > 5 }.map { (Double($0[0]) ?? 0, String($0[2]), String($0[5])) }
    }

    @Test func nothingIsFetchedBeforeTheWindowOpensAndNowIgnoresIt() throws {
        let h = try Harness(name: "window-open")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        let urgentOrigin = try h.startOrigin(named: "urgent")
        // The window opens at a whole minute about two hours from now, local time. The processes start an hour
        // before it; once the workers registered the clock is stepped to 15 s before it, so however slowly they
        // started, the test has the whole 15 s (the `--now` title takes a few).
        let opens = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 7_260
        let window = "\(Self.local(opens))-\(Self.local(opens + 1_800))"
        let (clock, fake) = try h.fakeClock("scheduler")
        _ = try Self.setClock(clock, reads: opens - 3_600)
        try h.startScheduler(
            environment: fake.merging(["STOWAGE_FILL_WINDOW": window, "TZ": Self.zone]) { $1 })
        try h.startWorker("license")
        try h.startWorker("download")
        try h.startWorker("integrity")
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        let opensReally = try Self.setClock(clock, reads: opens - 15, at: opens)

        let token = try h.submit("master.m3u8", ["--bitrate", "1000000"])
        let waiting = try h.status(token)
        #expect(waiting.state == .suspended && waiting.suspendedReason == .window, "\(waiting.state)")
        #expect(waiting.nextWindowAt == Self.iso(opens), "window \(window)")
        #expect(waiting.segmentsTotal == 0, "not even its playlist was fetched")
        // `--now` fetches at once, outside the window (from another origin, whose log is its own).
        let (code, out) = try h.stowctl(["submit", urgentOrigin.url + "master.m3u8", "--now"])
        #expect(code == 0)
        let urgent = try h.waitForFinal(String(try #require(out.split(separator: "\n").last)), timeout: 30)
        #expect(urgent.state == .completed)
        #expect(Date().timeIntervalSince1970 < opensReally, "the --now title completed before the window opened")
        #expect(h.originLog().isEmpty, "nothing of the windowed title fetched yet")

        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let log = Self.requests(h)
        #expect(!log.isEmpty)
        let early = log.filter { $0.at < opensReally }
        #expect(early.isEmpty, "fetched before the window opened at \(opensReally): \(early)")
        let paths = log.map(\.path)
        #expect(Set(paths).count == paths.count, "every file fetched once: \(paths)")
        #expect(paths.count >= final.segmentsTotal)
    }

    @Test func aDownloadStopsWhenTheWindowClosesAndGoesOnFromItsBytesWhenItOpens() throws {
        let h = try Harness(name: "window-close")
        try h.makeSample(seconds: 12)
        try h.startOrigin(throttleBytesPerSecond: 150_000)
        // Open from an hour ago to an hour from now (local time); the clock reads 10 minutes before the close.
        let opened = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 3_600
        let closes = opened + 7_200
        let (clock, fake) = try h.fakeClock("scheduler")
        _ = try Self.setClock(clock, reads: closes - 600)
        try h.startScheduler(
            environment: fake.merging([
                "STOWAGE_FILL_WINDOW": "\(Self.local(opened))-\(Self.local(closes))", "TZ": Self.zone,
                "STOWAGE_PER_TITLE": "2",
            ]) { $1 })
        try h.startWorker("license")
        try h.startWorker("download")
        try h.startWorker("integrity")
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        try h.waitUntil(timeout: 30, "the download under way") { ((try? h.status(token))?.segmentsDone ?? 0) >= 1 }

        // The clock is stepped to 3 s before the close; the close itself comes with time.
        let closesReally = try Self.setClock(clock, reads: closes - 3, at: closes)
        var stopped: TitleStatus?
        try h.waitUntil(timeout: 15, "the title to wait for its window") {
            stopped = try? h.status(token)
            return stopped?.suspendedReason == .window
        }
        let suspendedAt = Date().timeIntervalSince1970
        #expect(suspendedAt - closesReally < 3, "suspended \(suspendedAt - closesReally) s after the close")
        let s = try #require(stopped)
        #expect(s.state == .suspended && s.segmentsDone < s.segmentsTotal, "stopped mid-title")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: Self.zone)!
        let nextOpening = try #require(
            calendar.date(byAdding: .day, value: 1, to: Date(timeIntervalSince1970: opened))
        ).timeIntervalSince1970
        #expect(s.nextWindowAt == Self.iso(nextOpening))
        try h.waitForOriginIdle(timeout: 5)  // the transfers were cut, not finished
        #expect(Date().timeIntervalSince1970 - closesReally < 8, "every transfer stopped within seconds")
        let late = Self.requests(h).filter { $0.at > closesReally + 2.5 }
        #expect(late.isEmpty, "requests begun after the close: \(late)")
        let video = h.home.appendingPathComponent("titles/\(token)/video")
        let parts = ((try? FileManager.default.contentsOfDirectory(atPath: video.path)) ?? []).filter {
            $0.hasSuffix(".part")
        }
        #expect(!parts.isEmpty, "the partial bytes are kept")

        // The next morning: the clock is stepped to 2 s before the window opens again.
        let opensReally = try Self.setClock(clock, reads: nextOpening - 2, at: nextOpening)
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let resumed = Self.requests(h).filter { $0.at > closesReally + 2.5 }
        #expect(resumed.allSatisfy { $0.at >= opensReally }, "nothing fetched while the window was closed")
        // Each file whole once; a file cut at the close continues from its bytes (a Range past 0), never again whole.
        for path in Set(Self.requests(h).map(\.path)) {
            let gets = Self.requests(h).filter { $0.path == path }
            let whole = gets.filter { $0.range == "-" || $0.range.hasPrefix("bytes=0-") }
            #expect(whole.count == 1 && gets.count <= 2, "\(path) fetched \(gets.map(\.range))")
        }
        #expect(
            Self.requests(h).contains { $0.range.hasPrefix("bytes=") && !$0.range.hasPrefix("bytes=0-") },
            "a file cut at the close continued with a Range request")
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        #expect(
            try OfflineCopy.compare(
                localMedia: dir.appendingPathComponent("video/index.m3u8"),
                originMedia: h.media.appendingPathComponent("v720p/index.m3u8")) >= 3)
    }
}
