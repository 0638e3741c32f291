import StowageProtocol
import Testing

@testable import StowageSchedulerCore

/// What a task's result means for its file and title: a failed fetch (``FetchFailureVerdict``), a file's spent
/// budget (``FileRetryVerdict``), an integrity check's report (``CheckVerdict``) and the crash suspects' reasons.
@Suite struct TaskResultRulesTests {
    private func failure(
        _ code: ErrorCode, retryable: Bool, status: Int? = nil, retryAfter: Double? = nil, host: String? = nil,
        madeProgress: Bool? = nil
    ) -> TaskFailure {
        var f = TaskFailure(code: code, message: "m", retryable: retryable, retryAfter: retryAfter, host: host)
        f.status = status
        f.madeProgress = madeProgress
        return f
    }

    @Test func aFullDiskSuspendsWhateverElseTheFailureSays() {
        #expect(FetchFailureVerdict.of(failure(.diskFull, retryable: true)) == .waitForSpace)
        #expect(FetchFailureVerdict.of(failure(.diskFull, retryable: false, status: 404)) == .waitForSpace)
    }

    @Test func aRefusedFileIsAGapFirstOnlyWhenTheOriginSaysItIsGone() {
        #expect(
            FetchFailureVerdict.of(failure(.httpStatus, retryable: false, status: 404)) == .refused(goneFirst: true))
        #expect(
            FetchFailureVerdict.of(failure(.httpStatus, retryable: false, status: 410)) == .refused(goneFirst: true))
        #expect(
            FetchFailureVerdict.of(failure(.httpStatus, retryable: false, status: 403)) == .refused(goneFirst: false))
        #expect(FetchFailureVerdict.of(failure(.integrity, retryable: false)) == .refused(goneFirst: false))
    }

    @Test func aRetryAfterSlowsItsHostDownAndProgressStartsTheCountOver() {
        #expect(
            FetchFailureVerdict.of(failure(.network, retryable: true))
                == .retry(slowDown: nil, progressMade: false))
        #expect(
            FetchFailureVerdict.of(
                failure(.httpStatus, retryable: true, retryAfter: 5, host: "cdn", madeProgress: true))
                == .retry(
                    slowDown: .init(host: "cdn", resumeAfter: 5, recoverAfter: 5 + FetchFailureVerdict.recovery),
                    progressMade: true))
        // A Retry-After with no host to hold back slows nothing down.
        #expect(
            FetchFailureVerdict.of(failure(.httpStatus, retryable: true, retryAfter: 5))
                == .retry(slowDown: nil, progressMade: false))
    }

    @Test func aFileIsTriedAgainWithinTheBudgetNeverBeforeRetryAfter() {
        let again = FileRetryVerdict.of(
            attempts: 1, inARow: 0, maxAttempts: 5, code: .network, retryAfter: nil, jitter: 1)
        #expect(again == .again(delay: RetryQueue.backoff(attempt: 1, jitter: 1)))
        #expect(
            FileRetryVerdict.of(attempts: 2, inARow: 0, maxAttempts: 5, code: .httpStatus, retryAfter: 40, jitter: 1)
                == .again(delay: 40))
        #expect(
            FileRetryVerdict.of(attempts: 4, inARow: 4, maxAttempts: 5, code: .network, retryAfter: nil, jitter: 1)
                != .giveUp)
    }

    @Test func aSpentBudgetWaitsForTheHostOnlyOnTheNetwork() {
        #expect(
            FileRetryVerdict.of(attempts: 5, inARow: 0, maxAttempts: 5, code: .network, retryAfter: nil)
                == .waitForHost(attempts: 5))
        // The host's failures in a row spend the budget however few this file had.
        #expect(
            FileRetryVerdict.of(attempts: 1, inARow: 7, maxAttempts: 5, code: .network, retryAfter: nil)
                == .waitForHost(attempts: 7))
        #expect(
            FileRetryVerdict.of(attempts: 5, inARow: 0, maxAttempts: 5, code: .httpStatus, retryAfter: nil) == .giveUp)
        #expect(
            FileRetryVerdict.of(attempts: 5, inARow: 0, maxAttempts: 5, code: .integrity, retryAfter: nil)
                == .giveUp)
    }

    @Test func aCheckVerifiesWithTheHashKeptOrFetchesAgain() {
        #expect(CheckVerdict.of(VerifyReport(ok: true, sha256: "bb"), known: "aa") == .verified(sha256: "aa"))
        #expect(CheckVerdict.of(VerifyReport(ok: true, sha256: "bb"), known: nil) == .verified(sha256: "bb"))
        #expect(
            CheckVerdict.of(VerifyReport(ok: true), known: nil)
                == .fetchAgain(reason: "integrity: the check reported no SHA-256", removeFile: false))
        #expect(
            CheckVerdict.of(VerifyReport(ok: false, reason: "truncated", sha256: "bb"), known: "aa")
                == .fetchAgain(reason: "integrity: truncated", removeFile: true))
        #expect(
            CheckVerdict.of(VerifyReport(ok: false), known: nil)
                == .fetchAgain(reason: "integrity: check failed", removeFile: true))
    }

    @Test func crashSuspectsAreFailedWithWhatDiedAndWhatToDo() {
        let item = WorkItem(token: "t1", kind: .resolve)
        var suspects = CrashSuspects()
        for _ in 1..<CrashSuspects.threshold { #expect(suspects.lost([item]).isEmpty) }
        #expect(suspects.lost([item]) == [item])
        let error = CrashSuspects.workersDied(of: item)
        #expect(error.code == .internal)
        #expect(error.message.hasPrefix("\(CrashSuspects.threshold) download workers died while handling its"))
        #expect(error.message.contains("delete it, or resume it"))
        let crashed = CrashSuspects.schedulerCrashed(doing: "its resolve task for a worker")
        #expect(crashed.message.hasPrefix("the scheduler crashed while handling its resolve task for a worker"))
        // A fetch streams bytes: a worker dying with one is no sign against the title.
        var fetches = CrashSuspects()
        let fetch = WorkItem(token: "t1", kind: .fetch(resource: 1))
        for _ in 0..<CrashSuspects.threshold { #expect(fetches.lost([fetch]).isEmpty) }
    }
}
