import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// The interpreter of ``EvictionPolicy`` (the decision is there): what it is told of the titles, and carrying out
/// its verdict — deleting the victims, or suspending the new title until room appears.
extension SchedulerService {
    /// Admits a title of `need` bytes under the quota: nil when it fits (once the victims the policy names are
    /// deleted, here), else why it does not (the caller makes it wait with that message).
    func quotaRefusal(_ token: String, need: Int64) throws -> String? {
        guard let policy = memory.quota else { return nil }
        switch policy.admit(need: need, holdings: try holdings(except: token), now: clock.now()) {
        case .fits:
            return nil
        case .evict(let victims):
            for victim in victims { try evict(victim, for: token) }
            return nil
        case .wait(let message):
            return message
        }
    }

    /// Suspends a title that does not fit the quota (it resumes by ``resumeAfterQuota()``).
    func waitForQuota(_ token: String, reason: String) throws {
        logger.info("waits for room under the quota", metadata: ["token": "\(token)", "reason": "\(reason)"])
        try suspend(
            token, reason: .quota, waitingHost: nil,
            error: TitleError(code: .diskFull, message: "over the quota: \(reason)"))
    }

    /// Titles waiting for room under the quota carry on, oldest request first, once they fit (evicting what the
    /// policy allows: a play's protect window may have ended, a title been deleted or unpinned).
    func resumeAfterQuota() {
        guard memory.quota != nil,
            let waiting = try? store.titles(state: .suspended).filter({ $0.suspendedReason == .quota }),
            !waiting.isEmpty
        else { return }
        for title in waiting.sorted(by: { $0.requestedAt < $1.requestedAt }) {
            do {
                guard try quotaRefusal(title.token, need: title.bytesEstimate ?? 0) == nil else { continue }
                logger.info("room under the quota: resuming", metadata: ["token": "\(title.token)"])
                try resume(title.token)
            } catch {
                logger.error(
                    "could not resume after the quota", metadata: ["token": "\(title.token)", "error": "\(error)"])
            }
        }
    }

    /// Deletes `victim` (files and record, as `stowctl delete`) to make room for `token`; the log and the new
    /// title's events say which title went and why, since the victim's own record goes with it.
    private func evict(_ victim: String, for token: String) throws {
        let name = try store.title(victim)?.name.map { " (\($0))" } ?? ""
        logger.warning(
            "evicted to make room under the quota",
            metadata: ["token": "\(victim)", "name": "\(name)", "for": "\(token)"])
        try notifyEvicted(victim, reason: "to make room under the quota for \(token)")
        try delete(victim)
        try record(
            TitleHappening(token, kind: "evicted", detail: "evicted \(victim)\(name) to make room under the quota"))
    }

    /// `pin` / `unpin`: a pinned title is never evicted; an unpinned one may be, so waiting titles are looked at.
    func pin(_ token: String, _ pinned: Bool) throws -> TitleStatus {
        guard var title = try store.title(token) else { throw unknownTitle(token) }
        let changed = title.pinned != pinned
        if changed {
            title.pinned = pinned
            try store.update(title)
            try record(TitleHappening(token, kind: pinned ? "pinned" : "unpinned", detail: "by the operator"))
            logger.info(pinned ? "title pinned" : "title unpinned", metadata: ["token": "\(token)"])
        }
        // The answer is the title as unpinned: a title waiting for room may evict this very one just after.
        let answer = try status(of: title, progress: store.progress(token: token))
        if changed && !pinned { resumeAfterQuota() }
        return answer
    }

    /// `list --evictable`: the titles the quota would evict, first victim first (none without a quota).
    func evictionOrder() throws -> [TitleStatus] {
        guard let policy = memory.quota else { return [] }
        return try policy.order(holdings(except: nil), now: clock.now()).compactMap { holding in
            guard let title = try store.title(holding.token) else { return nil }
            return try status(of: title, progress: store.progress(token: holding.token))
        }
    }

    /// Pinned by the operator, or by an entry of the catalogue in force (`pinned: true`).
    func isPinned(_ title: TitleRecord) -> Bool {
        title.pinned || memory.catalog.pinnedTokens.contains(title.token)
    }

    /// Every title holding bytes but `except`: a completed title its files, one under way what it was promised
    /// (its estimate), one waiting for the quota or ended otherwise only what it stored.
    private func holdings(except: String?) throws -> [EvictionPolicy.Holding] {
        let progress = try store.progressByTitle()
        let now = clock.monotonic()
        // Just after a start a play under way has not reported yet: then every title counts as played.
        let blind = !memory.plays.seesEveryPlay(now: now)
        let playing = memory.plays.playing(now: now)
        let leaving = memory.catalog.leavingTokens
        return try store.titles().filter { $0.token != except && $0.state != .canceled }.map { title in
            let stored = progress[title.token]?.bytesVerified ?? 0
            let waits = title.state == .suspended && title.suspendedReason == .quota
            let promised = title.state.isFinal || waits ? stored : max(stored, title.bytesEstimate ?? 0)
            return EvictionPolicy.Holding(
                token: title.token, bytes: promised, evictable: title.state == .completed,
                leftCatalog: leaving.contains(title.token), pinned: isPinned(title),
                playing: blind || playing.contains(title.token), lastPlayedAt: title.lastPlayedAt,
                completedAt: title.endedAt)
        }
    }
}
