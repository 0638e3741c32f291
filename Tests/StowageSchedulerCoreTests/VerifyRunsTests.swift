import Testing

@testable import StowageSchedulerCore

@Suite("Verify runs")
struct VerifyRunsTests {
    @Test func aRunWithoutRepairRecordsBadFilesAndEndsWithThem() {
        var v = VerifyRuns()
        v.start("t", repair: false)
        let firstRecorded = v.recordFailure("t", reason: "seg-1.ts: bad hash")
        #expect(firstRecorded)
        let secondRecorded = v.recordFailure("t", reason: "seg-7.ts: truncated")
        #expect(secondRecorded)
        #expect(v.finish("t") == .badFiles(["seg-1.ts: bad hash", "seg-7.ts: truncated"]))
        #expect(v["t"] == nil)
    }

    @Test func repairRunsAndTitlesWithoutARunTakeTheNormalPath() {
        var v = VerifyRuns()
        let withoutRun = v.recordFailure("none", reason: "x")
        #expect(!withoutRun)
        v.start("t", repair: true)
        let inRepair = v.recordFailure("t", reason: "x")
        #expect(!inRepair, "a repair run fetches bad files again")
        #expect(v.finish("t") == nil, "a clean verify run completes like a download")
        #expect(v["t"] != nil)
        v.forget("t")
        #expect(v["t"] == nil)
    }

    @Test func aCleanScrubEndsQuietly() {
        var v = VerifyRuns()
        v.start("t", repair: false, scrub: true)
        #expect(v.isScrub("t") && v.scrubRunning)
        #expect(v.finish("t") == .cleanScrub)
        #expect(!v.scrubRunning)
    }

    @Test func scrubPicksTheTitleCheckedLongestAgoOneAtATime() {
        var v = VerifyRuns()
        let titles = [
            VerifyRuns.Candidate(token: "new", endedAt: 950),
            VerifyRuns.Candidate(token: "old", endedAt: 100),
            VerifyRuns.Candidate(token: "older", endedAt: 50),
            VerifyRuns.Candidate(token: "unknown", endedAt: nil),
        ]
        #expect(v.nextScrub(among: titles, now: 1_000, interval: 100) == "unknown", "never ended: counts from 0")
        #expect(v.nextScrub(among: titles, now: 1_000, interval: 100) == "older", "the last pick counts from now")
        v.start("older", repair: false, scrub: true)
        #expect(v.nextScrub(among: titles, now: 1_000, interval: 100) == nil, "one scrub at a time")
        #expect(v.finish("older") == .cleanScrub)
        #expect(v.nextScrub(among: titles, now: 1_000, interval: 100) == "old")
        #expect(v.nextScrub(among: titles, now: 1_000, interval: 100) == nil, "'new' ended 50 s ago")
        #expect(v.nextScrub(among: titles, now: 1_100, interval: 100) == "new")
        #expect(v.nextScrub(among: titles, now: 1_000, interval: 0) == nil)
    }

    @Test func ties() {
        var v = VerifyRuns()
        let titles = [VerifyRuns.Candidate(token: "b", endedAt: 1), VerifyRuns.Candidate(token: "a", endedAt: 1)]
        #expect(v.nextScrub(among: titles, now: 10, interval: 1) == "b", "ties go to the first candidate")
    }
}
