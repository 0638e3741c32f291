import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Synchronization
import Testing

/// The network component through the real service on the manual clock: a title whose host does not answer waits
/// for it past the retry budget (never failing without `--give-up-after`), the host is probed with backoff by a
/// real TCP probe on a thread of its own, a probe that gets through resumes the title, and `--give-up-after` fails
/// a title that waited longer, counting the outage across a restart.
@Suite struct NetworkComponentServiceTests {
    /// Ports handed out by ``closedHost()``: a port one test closed is never another's (a test that reopens its
    /// port must not answer another test's probes).
    private static let handedOut = Mutex<Set<Int>>([])

    /// `127.0.0.1:PORT` where nothing listens: fetches and probes alike are refused at once.
    static func closedHost() throws -> (host: String, port: Int) {
        for _ in 0..<100 {
            let listener = try LoopbackListener()
            let port = listener.port
            listener.close()
            if handedOut.withLock({ $0.insert(port).inserted }) { return ("127.0.0.1:\(port)", port) }
        }
        throw DriverError("no fresh loopback port in 100 tries")
    }

    /// What a download worker reports when the origin refuses the connection.
    static func refused(_ host: String) -> TaskFailure {
        var failure = TaskFailure(
            code: .network, message: "connection refused by \(host)", retryable: true, host: host)
        failure.endpoint = host
        return failure
    }

    /// Seconds since 1970 of a status timestamp.
    static func seconds(_ iso: String?) throws -> Double {
        let text = try #require(iso)
        return try #require(ISO8601DateFormatter().date(from: text)).timeIntervalSince1970
    }

    /// A licensed title of one file at `host`, its fetches refused until the title stops trying: returns the
    /// token and how many fetches were refused.
    func waitingTitle(_ d: ServiceDriver, host: String) throws -> (token: String, fetches: Int) {
        let token = try d.licensedTitle(files: 1, source: "http://\(host)/show/")
        var fetches = 0
        for _ in 0..<30 {
            for task in try d.tasks(for: "dl") {
                fetches += 1
                try d.answerFetch("dl", task) { _ in Self.refused(host) }
            }
            if try d.state(token) != .downloading { break }
            d.advance(38)  // past the longest retry backoff (30 s, jittered up to 1.25 times)
        }
        return (token, fetches)
    }

    @Test func aTitleWhoseHostIsUnreachableWaitsPastTheRetryBudgetAndNeverFailsByItself() throws {
        let (host, _) = try Self.closedHost()
        let d = try ServiceDriver()  // no --give-up-after; the retry budget is the default 8 attempts
        let (token, fetches) = try waitingTitle(d, host: host)
        #expect(fetches == 8, "each attempt of the budget was made")
        let waiting = try d.status(token)
        #expect(waiting.state == .suspended && waiting.suspendedReason == .network, "\(waiting)")
        #expect(waiting.waitingFor == host)
        #expect(try Self.seconds(waiting.suspendedSince) == d.clock.now().rounded(.down))
        #expect(try Self.seconds(waiting.nextProbeAt) == (d.clock.now() + 2).rounded(.down), "first probe after 2 s")
        #expect(waiting.error?.code == .network)
        #expect(waiting.error?.message.contains("connection refused by \(host)") == true, "\(waiting.error!)")
        #expect(waiting.error?.message.hasSuffix("waiting for \(host) to answer") == true, "\(waiting.error!)")
        // Each probe (a real TCP connect, refused) doubles the wait before the next, up to a minute.
        let since = d.clock.now()
        var intervals: [Double] = []
        for _ in 0..<7 {
            let next = try Self.seconds(try d.status(token).nextProbeAt)
            d.advance(next - d.clock.now())  // the probe is due: it starts on a thread of its own
            try d.passUntil("the probe's answer") { try Self.seconds(d.status(token).nextProbeAt) > d.clock.now() }
            intervals.append(try Self.seconds(d.status(token).nextProbeAt) - d.clock.now())
            #expect(try d.state(token) == .suspended)
        }
        #expect(intervals == [4, 8, 16, 32, 60, 60, 60])
        #expect(d.clock.now() - since >= 125, "waited longer than the integration test's two minutes")
        d.advance(6 * 3600)  // hours more: a wait never fails without --give-up-after
        let later = try d.status(token)
        #expect(later.state == .suspended && later.suspendedReason == .network && later.waitingFor == host)
        #expect(try d.tasks(for: "dl").isEmpty, "nothing is fetched while the host is away")
    }

    @Test func aProbeThatGetsThroughResumesTheTitleWhichCompletesByItself() throws {
        let (host, port) = try Self.closedHost()
        let d = try ServiceDriver()
        let (token, _) = try waitingTitle(d, host: host)
        #expect(try d.state(token) == .suspended)
        let back = try LoopbackListener(port: port)  // the origin is back
        defer { back.close() }
        let next = try Self.seconds(try d.status(token).nextProbeAt)
        d.advance(next - d.clock.now())
        try d.passUntil("the probe to resume the title") { try d.state(token) != .suspended }
        #expect([.requested, .downloading].contains(try d.state(token)))
        let resumed = try #require(try d.store.title(token))
        #expect(resumed.waitingHost == nil && resumed.suspendedReason == nil && resumed.errorCode == nil)
        #expect(try d.status(token).waitingFor == nil)
        let moves = try d.moves(token)
        #expect(moves.contains("suspended -> requested"), "\(moves)")
        // Nobody resumed it: the fetch goes out again by itself, and the title completes.
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
    }

    @Test func anOperatorsResumeOfANetworkWaitIsAdmittedAndItWaitsAgainIfTheHostIsStillAway() throws {
        let (host, _) = try Self.closedHost()
        let d = try ServiceDriver { $0.maxAttempts = 2 }
        let (token, _) = try waitingTitle(d, host: host)
        #expect(try d.state(token) == .suspended)
        _ = try d.request(.resume(token: token))
        #expect(try d.state(token) == .requested, "a network wait holds no refusal")
        var refusedAgain = 0
        for _ in 0..<30 where try d.state(token) != .suspended {
            for task in try d.tasks(for: "dl") {
                refusedAgain += 1
                try d.answerFetch("dl", task) { _ in Self.refused(host) }
            }
            d.advance(38)
        }
        #expect(refusedAgain > 0, "the resumed title tried its host again")
        #expect(try d.status(token).suspendedReason == .network)
        #expect(try d.status(token).waitingFor == host)
    }

    @Test func giveUpAfterFailsATitleWhoseResolveWaitedLongerThanAllowed() throws {
        let (host, _) = try Self.closedHost()
        let d = try ServiceDriver { $0.giveUpAfter = 30 }
        d.register("dl", .download)
        d.register("lic", .license)
        let token = try d.submit("http://\(host)/show/master.m3u8")
        // The origin is down from the start: every resolve is refused until its budget is spent.
        for _ in 0..<30 where try d.state(token) == .requested {
            for task in try d.tasks(for: "dl") { d.answer("dl", task, .failed(Self.refused(host))) }
            if try d.state(token) == .suspended { break }
            d.advance(38)
        }
        #expect(try d.status(token).suspendedReason == .network)
        #expect(try d.status(token).waitingFor == host)
        d.advance(28)
        #expect(try d.state(token) == .suspended, "28 s of the 30 allowed")
        d.advance(4)
        let failed = try d.status(token)
        #expect(failed.state == .failed)
        #expect(failed.error?.code == .network)
        #expect(
            failed.error?.message == "\(host) did not answer for 30 s (stowage-scheduler --give-up-after)",
            "\(String(describing: failed.error))")
        #expect(try d.moves(token).last?.hasPrefix("suspended -> failed") == true)
    }

    @Test func theWaitShowsFromTheFirstFailedAttemptNotWhenTheBudgetIsSpent() throws {
        let (host, _) = try Self.closedHost()
        let d = try ServiceDriver()
        d.register("dl", .download)
        let token = try d.submit("http://\(host)/show/master.m3u8")
        let before = try d.status(token)
        #expect(before.waitingFor == nil && before.error == nil, "nothing failed yet")
        // The resolve's first attempt is refused: the title is still requested and says why, and when it tries next.
        d.answer("dl", try d.resolveTask("dl"), .failed(Self.refused(host)))
        let first = try d.status(token)
        #expect(first.state == .requested && first.suspendedReason == nil)
        #expect(first.waitingFor == host, "\(first)")
        #expect(first.error?.code == .network)
        #expect(first.error?.message.contains("connection refused by \(host); attempt 1 failed") == true)
        let next = try Self.seconds(first.nextProbeAt) - d.clock.now()
        #expect(next >= 0 && next <= 1, "the first retry comes within a second: \(next)")
        // A title whose files are refused says so too; the host answering (a file arrives) clears it.
        let other = try d.licensedTitle(files: 2, source: "http://\(host)/b/")
        for task in try d.tasks(for: "dl") where task.token == other {
            try d.answerFetch("dl", task) { _ in Self.refused(host) }
        }
        let retrying = try d.status(other)
        #expect(retrying.state == .downloading && retrying.waitingFor == host, "\(retrying)")
        d.advance(2)
        for task in try d.tasks(for: "dl") where task.token == other { try d.fetchedAll("dl", task) }
        #expect(try d.status(other).segmentsDone == 2)
        let answered = try d.status(other)
        #expect(answered.waitingFor == nil && answered.error == nil, "\(answered)")
    }

    @Test func aRestartCarriesOnTheOutageFromWhenTheTitleStartedWaiting() throws {
        let (host, _) = try Self.closedHost()
        let d = try ServiceDriver {
            $0.giveUpAfter = 60
            $0.maxAttempts = 2
        }
        let (token, _) = try waitingTitle(d, host: host)
        #expect(try d.state(token) == .suspended)
        d.advance(40)
        try d.restart()
        d.register("dl", .download)
        d.tick()
        let after = try d.status(token)
        #expect(after.state == .suspended && after.waitingFor == host)
        #expect(after.nextProbeAt != nil, "the host is probed again after the restart")
        d.advance(15)
        #expect(try d.state(token) == .suspended, "55 s of the 60 allowed")
        d.advance(7)
        #expect(try d.state(token) == .failed, "62 s since it started waiting, 22 s since the restart")
        #expect(try d.store.title(token)?.errorMessage?.contains("did not answer for 60 s") == true)
    }
}
