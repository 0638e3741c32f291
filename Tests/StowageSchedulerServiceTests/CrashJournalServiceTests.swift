import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

@testable import StowageSchedulerService

/// A trap while handling one title must not stop the box again at the next start: the journal names the title
/// being handled, a crash marks it, and the next start fails that title (and only it) with the reason.
@Suite struct CrashJournalServiceTests {
    static func journal(_ d: ServiceDriver) -> URL {
        d.home.appendingPathComponent("run/scheduler.journal")
    }

    /// A submitted title whose resolve result the scheduler handled last (the driver delivers outside a batch, so
    /// the journal still names it, as it would in a crash during that handling).
    static func handledResult(_ d: ServiceDriver) throws -> String {
        d.register("dl", .download)
        let token = try d.submit()
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: 2)))
        return token
    }

    @Test func aCrashWhileHandlingATitleFailsThatTitleAtTheNextStart() throws {
        let d = try ServiceDriver()
        let token = try Self.handledResult(d)
        let record = try String(contentsOf: Self.journal(d), encoding: .utf8)
        #expect(record.hasPrefix("+\(token)\t"), "the journal names the title being handled: \(record)")
        // What the crash handler does: '!' over the state byte.
        let handle = try FileHandle(forWritingTo: Self.journal(d))
        try handle.write(contentsOf: Data("!".utf8))
        try handle.close()
        try d.restart()
        let status = try d.status(token)
        #expect(status.state == .failed)
        #expect(status.error?.code == .internal)
        #expect(status.error?.message.contains("crashed while handling the result of its resolve task") == true)
        // The box goes on: another title is handed out, and the crash is not blamed twice.
        let other = try d.submit("http://origin.test/other/master.m3u8")
        #expect(try d.state(other) == .requested)
        try d.restart()
        #expect(try d.state(other) == .requested)
    }

    @Test func aKillWhileHandlingATitleIsNoCrash() throws {
        let d = try ServiceDriver()
        let token = try Self.handledResult(d)
        try d.restart()  // kill -9: no handler ran, the journal still says "+token"
        #expect(try d.state(token) == .licensing)
    }

    @Test func aCrashWhileIdleBlamesNoTitle() {
        #expect(CrashJournal.crash(in: Array("!\n".utf8)) == nil)
        #expect(CrashJournal.crash(in: Array("!abc\tits work\n".utf8)) == .init(token: "abc", doing: "its work"))
        #expect(CrashJournal.crash(in: Array("+abc\tits work\n".utf8)) == nil)
        #expect(CrashJournal.crash(in: Array(("!" + String(repeating: "a", count: 65) + "\tx").utf8)) == nil)
    }
}

/// A title whose input kills every worker that takes its task is failed after a few deaths, and the others go on.
@Suite struct CrashSuspectServiceTests {
    /// `dl-N` takes the title's resolve task and dies (stops answering until declared dead).
    static func dies(_ d: ServiceDriver, _ n: Int) throws -> TaskAssignment {
        d.register("dl-\(n)", .download)
        let task = try d.task(for: "dl-\(n)")
        d.silence("dl-\(n)")
        d.advance(Double(WireProtocol.heartbeatMilliseconds * WireProtocol.liveness) / 1000 + 1)
        return task
    }

    @Test func aTaskThatKillsThreeWorkersFailsItsTitle() throws {
        let d = try ServiceDriver()
        let token = try d.submit()
        for n in 1..<CrashSuspects.threshold {
            guard case .resolve = try Self.dies(d, n).work else { throw DriverError("not the resolve task") }
            #expect(try d.state(token) == .requested, "after \(n) deaths the title still waits for a worker")
        }
        _ = try Self.dies(d, CrashSuspects.threshold)
        let status = try d.status(token)
        #expect(status.state == .failed && status.error?.code == .internal, "\(status.state)")
        #expect(status.error?.message.contains("3 download workers died while handling its resolve task") == true)
        // The next title is handed to the next worker.
        let other = try d.submit("http://origin.test/other/master.m3u8")
        d.register("dl-next", .download)
        #expect(try d.task(for: "dl-next").token == other)
    }

    @Test func workersDyingWhileFetchingFailNothing() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 1)
        d.silence("dl")
        d.advance(Double(WireProtocol.heartbeatMilliseconds * WireProtocol.liveness) / 1000 + 1)
        for n in 1...CrashSuspects.threshold + 1 {
            d.register("dl-\(n)", .download)
            let tasks = try d.tasks(for: "dl-\(n)")
            #expect(!tasks.isEmpty, "the fetch is handed out again")
            d.silence("dl-\(n)")
            d.advance(Double(WireProtocol.heartbeatMilliseconds * WireProtocol.liveness) / 1000 + 1)
        }
        #expect(try d.state(token) != .failed)
    }

    @Test func theCountIsOfDeathsInARow() {
        var suspects = CrashSuspects()
        let item = WorkItem(token: "t", kind: .resolve)
        #expect(suspects.lost([item]).isEmpty && suspects.lost([item]).isEmpty)
        suspects.completed(item)
        #expect(suspects.lost([item]).isEmpty && suspects.lost([item]).isEmpty)
        #expect(suspects.lost([item]) == [item])
        #expect(suspects.lost([WorkItem(token: "t", kind: .fetch(resource: 1))]).isEmpty)
    }
}
