import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The service's timing on a manual clock: leases and workers that go silent, heartbeats, subscriptions,
/// waiting for the network and giving up, space coming back, limits across restarts, clock steps.
@Suite struct ServiceTimerTests {
    @Test func aSilentWorkerIsDeclaredDeadAndItsLateResultIsIgnored() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 1)
        let first = try d.task(for: "dl")
        d.register("dl2", .download)
        d.silence("dl")
        d.advance(2)
        #expect(try d.tasks(for: "dl2").isEmpty)  // not dead yet
        d.advance(2)  // dl silent for 4 s: past 3 heartbeats
        let again = try d.task(for: "dl2")
        #expect(again.taskID != first.taskID)
        // dl was stopped, not dead: it answers late, behind a heartbeat it had queued. The answer is not taken, and
        // dl is told to register again once (each REREGISTER makes a worker drop its tasks and register anew).
        d.deliver("dl", FrameCodec.encode(.heartbeat))
        try d.fetchedAll("dl", first)
        #expect(d.outbox.take("dl").filter { $0.command == .reregister }.count == 1)
        #expect(try d.store.progress(token: token).verified == 0)
        try d.fetchedAll("dl2", again)
        #expect(try d.state(token) == .completed)
    }

    @Test func heartbeatsGoOutOnceASecondAndSubscriptionsLapse() throws {
        let d = try ServiceDriver()
        d.register("dl", .download)
        _ = d.outbox.take("dl")
        d.tick()
        let beats = { d.outbox.take("dl").filter { $0.command == .heartbeat }.count }
        let first = beats()
        d.clock.advance(0.5)
        d.tick()
        #expect(beats() == 0)
        d.clock.advance(0.6)
        d.tick()
        #expect(beats() == 1)
        #expect(first == 1)  // the first pass runs every duty
        // A subscriber hears events until its subscription lapses (three heartbeats without renewal).
        let token = try d.submit()
        #expect(try d.request(.subscribe(tokens: [token]), from: "watcher") == .ok)
        _ = d.outbox.take("watcher")
        _ = try d.request(.pause(token: token))
        #expect(d.outbox.take("watcher").contains { $0.command == .event })
        for _ in 0..<4 { d.advance(1.1) }
        _ = try d.request(.resume(token: token))
        #expect(!d.outbox.take("watcher").contains { $0.command == .event })
    }

    @Test func aHostThatStopsAnsweringSuspendsTheTitleUntilAProbeGetsThrough() throws {
        let listener = try LoopbackListener()
        let port = listener.port
        listener.close()  // nothing listens: connections are refused
        let d = try ServiceDriver { $0.maxAttempts = 2 }
        let host = "127.0.0.1:\(port)"
        let token = try d.licensedTitle(files: 1, source: "http://\(host)/show/")
        var rounds = 0
        while try d.state(token) != .suspended, rounds < 10 {
            for task in try d.tasks(for: "dl") {
                d.answer(
                    "dl", task, .failed(TaskFailure(code: .network, message: "refused", retryable: true, host: host)))
            }
            d.advance(31)
            rounds += 1
        }
        let title = try #require(try d.store.title(token))
        #expect(title.state == .suspended)
        #expect(title.suspendedReason == .network)
        #expect(title.waitingHost == host)
        #expect(try d.status(token).waitingFor == host)
        // The host answers again: the next probe sees it and the title carries on.
        let back = try LoopbackListener(port: port)
        defer { back.close() }
        let deadline = Date().addingTimeInterval(10)
        while try d.state(token) == .suspended, Date() < deadline {
            d.advance(5)  // probes back off 2 s, 4 s … the probe itself connects on a thread of its own
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect([.requested, .downloading].contains(try d.state(token)))
        #expect(try d.store.title(token)?.waitingHost == nil)
    }

    @Test func aTitleWaitingLongerThanGiveUpAfterFails() throws {
        let d = try ServiceDriver {
            $0.maxAttempts = 1
            $0.giveUpAfter = 30
        }
        let token = try d.licensedTitle(files: 1)
        let fetch = try d.task(for: "dl")
        d.answer(
            "dl", fetch, .failed(TaskFailure(code: .network, message: "down", retryable: true, host: "10.255.0.1:9")))
        #expect(try d.state(token) == .suspended)
        d.advance(20)
        #expect(try d.state(token) == .suspended)
        d.advance(12)
        #expect(try d.state(token) == .failed)
        #expect(try d.store.title(token)?.errorMessage?.contains("--give-up-after") == true)
    }

    @Test func aTitleSuspendedForSpaceResumesWhenTheDiskCheckFindsRoom() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 1)
        _ = try d.task(for: "dl")
        // Stored by an earlier run: suspended for space. Only the reason says so (no error code).
        var title = try #require(try d.store.title(token))
        title.state = .suspended
        title.suspendedReason = .diskFull
        title.errorCode = nil
        try d.store.update(title)
        _ = try d.request(.limits(LimitsInfo(diskCushion: 1 << 50)))  // no disk here has room for this cushion
        try d.restart()
        d.register("dl", .download)
        d.tick()  // the first pass runs every duty: the disk check finds no room
        #expect(try d.state(token) == .suspended)
        _ = try d.request(.limits(LimitsInfo(diskCushion: 1)))
        d.advance(1.9)
        #expect(try d.state(token) == .suspended)  // the disk check waits for its 2 s
        d.advance(0.2)
        #expect([.requested, .downloading].contains(try d.state(token)))
    }

    @Test func limitsSetByTheOperatorHoldAfterARestart() throws {
        let d = try ServiceDriver()
        _ = try d.request(.limits(LimitsInfo(titles: 3, bandwidth: 5_000_000)))
        try d.restart()
        guard case .limits(let limits) = try d.request(.limits(nil)) else { throw DriverError("no limits") }
        #expect(limits.titles == 3)
        #expect(limits.bandwidth == 5_000_000)
        // The bandwidth is shared among the download workers, and sent again when they change.
        d.register("dl1", .download)
        d.register("dl2", .download)
        d.advance(1.1)
        let share = { (w: String) in
            try d.outbox.take(w).filter { $0.command == .limits }.last.map {
                try FrameCodec.body(WorkerLimits.self, from: $0).bytesPerSecond
            }
        }
        #expect(try share("dl1") == 2_500_000)
        #expect(try share("dl2") == 2_500_000)
    }

    @Test func theWallClockGoingBackStartsANewEpochAndExpiresTimedLicenses() throws {
        let d = try ServiceDriver()
        let rental = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 86_400)
        let token = try d.licensedTitle(files: 1, terms: rental)
        try d.fetchEverything("dl")
        #expect(try d.status(token).license?.expired == false)
        d.clock.stepWall(-3_600)
        d.advance(10.1)  // the clock guard runs every 10 s
        #expect(try d.store.setting("clock.epoch") == "1")
        #expect(try d.status(token).license?.expired == true)
        // Forward steps move nothing.
        d.clock.stepWall(7_200)
        d.advance(10.1)
        #expect(try d.store.setting("clock.epoch") == "1")
    }
}
