import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The service's timing on a manual clock: leases and workers that go silent, heartbeats, subscriptions, limits
/// across restarts. (Waiting for the network and space coming back: the network and disk suites; clock steps: the
/// clock guard's.)
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
}
