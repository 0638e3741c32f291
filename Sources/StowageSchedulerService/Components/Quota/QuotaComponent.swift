import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// `--quota`: the interpreter of ``EvictionPolicy`` (the decision is there). It tells the policy what titles hold,
/// carries out its verdict (deleting victims, or making a title wait until room appears), resumes waiting titles
/// when they fit, and answers `pin`/`unpin` and `list --evictable` with the same function eviction uses.
final class QuotaComponent: SchedulerComponent, SuspensionOwner {
    let name = "quota"
    let owns = SuspendedReason.quota
    private let context: ComponentContext
    /// The policy (nil: no quota; pins and the evictable list still answer).
    private let policy: EvictionPolicy?
    /// Who else has a say on a holding (the catalogue, plays).
    private let advisors: () -> [any EvictionAdvisor]
    /// Waiting titles are looked at every 2 s.
    private var due = Every(seconds: 2)

    init(context: ComponentContext, policy: EvictionPolicy?, advisors: @escaping () -> [any EvictionAdvisor]) {
        self.context = context
        self.policy = policy
        self.advisors = advisors
    }

    func tick(now: Double) {
        if due.isDue(now: now) { resumeWaiting() }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .pin(let token, let pinned):
            return .title(try pin(token, pinned))
        case .evictable:
            return .titles(try evictionOrder())
        default:
            return nil
        }
    }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        status.pinned = advised([Self.holding(of: title, stored: 0)]).first?.pinned ?? title.pinned
    }

    /// Admits a title of `need` bytes: nil when it fits (once the victims the policy names are deleted, here),
    /// else why it does not (the caller makes it wait with ``wait(_:reason:)``).
    func refusal(_ token: String, need: Int64) throws -> String? {
        guard let policy else { return nil }
        switch policy.admit(need: need, holdings: try holdings(except: token), now: context.clock.now()) {
        case .fits:
            return nil
        case .evict(let victims):
            for victim in victims { try evict(victim, for: token) }
            return nil
        case .wait(let message):
            return message
        }
    }

    /// An operator's resume of a title waiting for room: admitted when it fits now.
    func resumeRefusal(_ title: TitleRecord) throws -> String? {
        try refusal(title.token, need: title.bytesEstimate ?? 0)
    }

    /// Suspends a title that does not fit the quota (it resumes at a tick once it fits).
    func wait(_ token: String, reason: String) throws {
        context.logger.info("waits for room under the quota", metadata: ["token": "\(token)", "reason": "\(reason)"])
        try context.desk.suspend(
            token, reason: .quota, error: TitleError(code: .quota, message: "over the quota: \(reason)"))
    }

    /// Titles waiting for room carry on, oldest request first, once they fit (evicting what the policy allows: a
    /// play's protect window may have ended, a title been deleted or unpinned).
    func resumeWaiting() {
        guard policy != nil,
            let waiting = try? context.store.titles(state: .suspended).filter({ $0.suspendedReason == .quota }),
            !waiting.isEmpty
        else { return }
        for title in waiting.sorted(by: { $0.requestedAt < $1.requestedAt }) {
            do {
                guard try refusal(title.token, need: title.bytesEstimate ?? 0) == nil else { continue }
                context.logger.info("room under the quota: resuming", metadata: ["token": "\(title.token)"])
                try context.desk.resume(title.token)
            } catch {
                context.logger.error(
                    "could not resume after the quota", metadata: ["token": "\(title.token)", "error": "\(error)"])
            }
        }
    }

    /// Deletes `victim` (files and record, as `stowctl delete`) to make room for `token`; the log and the new
    /// title's events say which title went and why, since the victim's own record goes with it.
    private func evict(_ victim: String, for token: String) throws {
        let name = try context.store.title(victim)?.name.map { " (\($0))" } ?? ""
        context.logger.warning(
            "evicted to make room under the quota",
            metadata: ["token": "\(victim)", "name": "\(name)", "for": "\(token)"])
        // Told before the record goes, so receivers learn which copy left; the victim's event stays in the log, so
        // a `status` of its token says where it went (``SchedulerService/missing(_:)``).
        try context.desk.record(
            TitleHappening(
                victim, kind: "evicted", detail: "to make room under the quota for \(token)", notice: .evicted))
        try context.desk.delete(victim)
        try context.desk.record(
            TitleHappening(
                token, kind: "evicted", detail: "evicted \(victim)\(name) to make room under the quota",
                published: "evicted"))
    }

    /// `pin` / `unpin`: a pinned title is never evicted; an unpinned one may be, so waiting titles are looked at.
    private func pin(_ token: String, _ pinned: Bool) throws -> TitleStatus {
        guard var title = try context.store.title(token) else {
            throw TitleError(code: .notFound, message: "no title \(token)")
        }
        let changed = title.pinned != pinned
        if changed {
            title.pinned = pinned
            try context.store.update(title)
            try context.desk.record(
                TitleHappening(token, kind: pinned ? "pinned" : "unpinned", detail: "by the operator"))
            context.logger.info(pinned ? "title pinned" : "title unpinned", metadata: ["token": "\(token)"])
        }
        // The answer is the title as unpinned: a title waiting for room may evict this very one just after.
        let answer = try context.desk.status(token)
        if changed && !pinned { resumeWaiting() }
        return answer
    }

    /// `stats`: the bytes the titles hold as the policy counts them, and the quota (nil: none).
    func usage() throws -> (used: Int64, quota: Int64?) {
        (try holdings(except: nil).reduce(0) { $0.saturatingAdding($1.bytes) }, policy?.quota)
    }

    /// `list --evictable`: the titles the quota would evict, first victim first (none without a quota).
    private func evictionOrder() throws -> [TitleStatus] {
        guard let policy else { return [] }
        return try policy.order(holdings(except: nil), now: context.clock.now()).compactMap { holding in
            try context.store.title(holding.token) == nil ? nil : context.desk.status(holding.token)
        }
    }

    /// Every title holding bytes but `except`: a completed title its files, one under way what it was promised
    /// (its estimate), one waiting for the quota or ended otherwise only what it stored; with every advisor's say.
    private func holdings(except: String?) throws -> [EvictionPolicy.Holding] {
        let progress = try context.store.progressByTitle()
        let titles = try context.store.titles().filter { $0.token != except && $0.state != .canceled }
        return advised(titles.map { Self.holding(of: $0, stored: progress[$0.token]?.bytesVerified ?? 0) })
    }

    private func advised(_ holdings: [EvictionPolicy.Holding]) -> [EvictionPolicy.Holding] {
        var holdings = holdings
        let now = context.clock.monotonic()
        for advisor in advisors() { advisor.advise(&holdings, now: now) }
        return holdings
    }

    /// One title as the policy sees it, before the advisors.
    private static func holding(of title: TitleRecord, stored: Int64) -> EvictionPolicy.Holding {
        let waits = title.state == .suspended && title.suspendedReason == .quota
        let promised = title.state.isFinal || waits ? stored : max(stored, title.bytesEstimate ?? 0)
        return EvictionPolicy.Holding(
            token: title.token, bytes: promised, evictable: title.state == .completed, leftCatalog: false,
            pinned: title.pinned, playing: false, lastPlayedAt: title.lastPlayedAt, completedAt: title.endedAt)
    }
}
