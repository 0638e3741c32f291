import Foundation
import StowageProtocol
import StowageSchedulerCore
import Testing

/// A license server that does not answer, on the manual clock with the default options: the retry budget spent on
/// connectivity failures suspends the title waiting for that server (not the origin), it waits while the probes
/// (real TCP connections to a closed loopback port) fail, and the first probe that gets through sends the license
/// request again. The origin's side of the same rules is `NetworkComponentServiceTests`; the integration test
/// (`NetworkWaitTests`) proves both with real processes.
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
