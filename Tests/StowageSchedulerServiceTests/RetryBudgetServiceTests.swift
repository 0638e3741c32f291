import Foundation
import StowageProtocol
import StowageSchedulerCore
import Testing

/// A file whose check keeps failing spends the default retry budget (8 attempts, backoff 0.5 s doubling to at most
/// 30 s with ±25 % jitter: about a minute) and then fails the title naming it: the decision the integration tests
/// of broken segments (`DecryptedCheckTests`, `ShakaPackagerHLSTests`) leave to this suite, so they stop at the
/// first refusal instead of waiting a minute of real time. The integrity worker's verdict spends the same budget.
@Suite struct RetryBudgetServiceTests {
    static let url = "http://origin.test/show/seg0.ts"

    @Test func aFileWhoseCheckKeepsFailingIsRetriedWithBackoffThenFailsTheTitleNamingIt() throws {
        let d = try ServiceDriver()  // the default budget
        let token = try d.licensedTitle(files: 1)
        let refusal = "\(Self.url): after decryption: 100 bytes past the last whole MPEG-TS packet; not stored"
        var attempts = 0
        var fetch = try d.task(for: "dl")
        while true {
            attempts += 1
            d.answer("dl", fetch, .failed(TaskFailure(code: .integrity, message: refusal, retryable: true)))
            if try d.state(token) == .failed { break }
            #expect(try d.state(token) == .downloading, "attempt \(attempts): the title goes on")
            // The retry waits its backoff: not before 0.75 of it, by 1.25 of it.
            let wait = RetryQueue.retryBackoff.delay(afterFailures: attempts - 1)
            d.advance(wait * 0.74)
            #expect(try d.tasks(for: "dl").isEmpty, "attempt \(attempts + 1) sent before its backoff of \(wait) s")
            d.advance(wait * 0.52)
            let again = try d.tasks(for: "dl")
            try #require(again.count == 1, "attempt \(attempts + 1) after its backoff of \(wait) s: \(again)")
            fetch = again[0]
            try #require(attempts < 20, "the title never failed")
        }
        #expect(attempts == 8, "the default budget is 8 attempts")
        let title = try #require(try d.store.title(token))
        #expect(title.errorCode == ErrorCode.integrity.rawValue)
        let message = title.errorMessage ?? ""
        #expect(message.contains("seg0.ts") && message.contains("after decryption"), "names the file: \(message)")
        #expect(message.contains("after 8 attempts"), "\(message)")
        #expect(try d.store.progress(token: token).verified == 0, "nothing of the broken file was kept")
        d.advance(60)
        #expect(try d.tasks(for: "dl").isEmpty, "no retry outlives the failure")
    }

    @Test func aFileTheIntegrityCheckFindsBadIsFetchedAgainUntilTheBudgetIsSpent() throws {
        let d = try ServiceDriver { $0.maxAttempts = 2 }
        d.register("int", .integrity)
        let token = try d.licensedTitle(files: 1)
        for attempt in 1...2 {
            d.answer("dl", try d.task(for: "dl"), .fetched(FetchReport(bytes: 10, contentLength: 10)))
            d.answer("int", try d.task(for: "int"), .verified(VerifyReport(ok: false, reason: "bad bytes")))
            if attempt == 1 {
                #expect(try d.tasks(for: "dl").isEmpty, "fetched again only after its backoff")
                d.advance(0.7)
            }
        }
        let failed = try #require(try d.store.title(token))
        #expect(failed.state == .failed && failed.errorCode == ErrorCode.integrity.rawValue)
        #expect(failed.errorMessage == "http://origin.test/show/seg0.ts: integrity: bad bytes (after 2 attempts)")
    }

    /// A worker's message that names the file already is not prefixed with its URL a second time.
    @Test func theFilesURLIsSaidOnce() throws {
        let d = try ServiceDriver { $0.maxAttempts = 2 }
        let token = try d.licensedTitle(files: 1)
        let url = "http://origin.test/show/seg0.ts"
        for attempt in 1...2 {
            try d.answerFetch("dl", try d.task(for: "dl")) { url in
                TaskFailure(code: .integrity, message: "\(url): not an MPEG-TS packet; not stored", retryable: true)
            }
            if attempt == 1 { d.advance(0.7) }
        }
        let failed = try #require(try d.store.title(token))
        #expect(failed.errorMessage == "\(url): not an MPEG-TS packet; not stored (after 2 attempts)")
    }
}
