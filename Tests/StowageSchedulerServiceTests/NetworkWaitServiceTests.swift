import Foundation
import StowageProtocol
import StowageSchedulerCore
import Testing

/// Waiting for the network on the manual clock with the default options: the retry budget spent on connectivity
/// failures suspends a title (it never fails by itself), it waits however long the host is away while the probes
/// (real TCP connections to a closed loopback port) keep failing at most a minute apart, and the first probe that
/// gets through resumes it. The integration test (`NetworkWaitTests`) proves the same with real processes in about
/// a minute; the ten minutes of waiting are proven here.
@Suite(.serialized) struct NetworkWaitServiceTests {
    /// A loopback port nothing listens on: connections to it are refused at once.
    static func closedPort() throws -> Int {
        let listener = try LoopbackListener()
        listener.close()
        return listener.port
    }

    /// Answers `worker`'s tasks with `failure` (each retry after its backoff) until the title is suspended;
    /// returns the attempts it took.
    static func spendBudget(
        _ d: ServiceDriver, _ token: String, worker: String, failure: TaskFailure
    ) throws -> Int {
        var attempts = 0
        while try d.state(token) != .suspended {
            for task in try d.tasks(for: worker) {
                attempts += 1
                d.answer(worker, task, .failed(failure))
            }
            let state = try d.state(token)
            try #require(state?.isFinal != true, "the title ended: \(String(describing: state))")
            try #require(attempts < 20, "still not waiting after \(attempts) attempts")
            d.advance(40)  // past the longest backoff (30 s and its jitter)
        }
        return attempts
    }

    /// Manual time passes in steps of 5 s; the probes' threads get a moment to connect and post their answers.
    static func wait(_ d: ServiceDriver, seconds: Double, until done: () throws -> Bool = { false }) throws {
        var waited = 0.0
        while waited < seconds, try !done() {
            d.advance(5)
            waited += 5
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    static func seconds(untilISO text: String?, from now: Double) throws -> Double {
        let date = try #require(text.flatMap { ISO8601DateFormatter().date(from: $0) }, "\(String(describing: text))")
        return date.timeIntervalSince1970 - now
    }

    @Test func aTitleWaitsForItsOriginForMinutesWithoutFailingAndAProbeThatGetsThroughResumesIt() throws {
        let port = try Self.closedPort()
        let host = "127.0.0.1:\(port)"
        let d = try ServiceDriver()  // no --give-up-after: titles wait for ever
        let token = try d.licensedTitle(files: 1, source: "http://\(host)/show/")
        var failure = TaskFailure(code: .network, message: "connection refused by \(host)", retryable: true)
        failure.endpoint = host
        let attempts = try Self.spendBudget(d, token, worker: "dl", failure: failure)
        #expect(attempts == 8, "the default budget is 8 attempts")
        let suspended = try d.status(token)
        #expect(suspended.suspendedReason == .network && suspended.waitingFor == host)
        #expect(suspended.error?.code == .network)
        #expect(suspended.error?.message.contains("connection refused by \(host)") == true)

        // Ten minutes away: it keeps waiting, the next probe never more than a minute ahead, no work goes out.
        for minute in 1...10 {
            try Self.wait(d, seconds: 60)
            let s = try d.status(token)
            #expect(s.state == .suspended && s.suspendedReason == .network, "after \(minute) min: \(s.state)")
            let ahead = try Self.seconds(untilISO: s.nextProbeAt, from: d.clock.now())
            #expect(ahead >= -1 && ahead <= 61, "after \(minute) min the next probe is \(ahead) s ahead")
            #expect(try d.tasks(for: "dl").isEmpty, "nothing is fetched while the host is away")
        }

        // The host answers: within the longest probe interval the title carries on by itself and completes.
        let back = try LoopbackListener(port: port)
        defer { back.close() }
        try Self.wait(d, seconds: 65) { try d.state(token) != .suspended }
        let resumed = try d.state(token)
        #expect(resumed == .requested || resumed == .downloading, "\(String(describing: resumed))")
        #expect(try d.store.title(token)?.waitingHost == nil)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
    }

    @Test func aLicenseServerThatDoesNotAnswerSuspendsTheTitleUntilAProbeGetsThrough() throws {
        let port = try Self.closedPort()
        let host = "127.0.0.1:\(port)"
        let d = try ServiceDriver()
        d.register("dl", .download)
        d.register("lic", .license)
        let token = try d.submit()
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: 2)))
        var failure = TaskFailure(code: .network, message: "connection refused by \(host)", retryable: true)
        failure.endpoint = host
        let attempts = try Self.spendBudget(d, token, worker: "lic", failure: failure)
        #expect(attempts == 8, "the default budget is 8 attempts")
        let waiting = try d.status(token)
        #expect(waiting.suspendedReason == .network)
        #expect(waiting.waitingFor == host, "it waits for the license server, not the origin")
        #expect(waiting.error?.message.contains("connection refused by \(host)") == true)
        #expect(waiting.license == nil)
        try Self.wait(d, seconds: 180)
        #expect(try d.state(token) == .suspended, "three minutes later it still waits")
        #expect(try d.tasks(for: "dl").isEmpty, "no file is fetched before the title is licensed")

        let back = try LoopbackListener(port: port)
        defer { back.close() }
        var license: [TaskAssignment] = []
        try Self.wait(d, seconds: 65) {
            license += try d.tasks(for: "lic")
            return !license.isEmpty
        }
        let acquisition = try #require(license.first, "the license is asked for again once the server answers")
        d.answer(
            "lic", acquisition,
            .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: d.clock.now()))))
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        #expect(try d.status(token).license?.kind == .purchase)
    }
}
