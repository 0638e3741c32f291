import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Licenses and their renewals: records a grant (keys wrapped before they touch the store), starts the download it
/// allows, keeps a title whose renewal failed with its media, renews by hand (`renew`) and before expiry
/// (`--auto-renew-before`, every 10 s), and answers `license`. Operator keys (`submit --key`) are in
/// ``LicensingComponent+OperatorKeys``.
final class LicensingComponent: SchedulerComponent {
    let name = "licensing"
    let context: ComponentContext
    unowned let pipeline: any PipelineDesk
    /// `--auto-renew-before` (seconds; nil: never).
    private let autoRenewBefore: Double?
    /// The clock guard's epoch now: a license recorded in an older one predates a rollback.
    private let epoch: () -> Int
    /// The download rate to assume when telling whether a license ends before the download could (the cap).
    private let assumedRate: () -> Int64?
    /// Whether a title may be played now, for the `license` report.
    private let playability: (TitleRecord) throws -> PlayAuthorization
    /// Renewals under way.
    var renewals = Renewals()
    private var due = Every(seconds: 10)

    init(
        context: ComponentContext, pipeline: any PipelineDesk, autoRenewBefore: Double?, epoch: @escaping () -> Int,
        assumedRate: @escaping () -> Int64?, playability: @escaping (TitleRecord) throws -> PlayAuthorization
    ) {
        self.context = context
        self.pipeline = pipeline
        self.autoRenewBefore = autoRenewBefore
        self.epoch = epoch
        self.assumedRate = assumedRate
        self.playability = playability
    }

    func tick(now: Double) {
        if due.isDue(now: now) { autoRenew() }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .renew(let token, let terms, let licenseURL):
            try renew(token, terms: terms, licenseURL: licenseURL)
            return .title(try context.desk.status(token))
        case .license(let token):
            return .license(try report(token))
        default:
            return nil
        }
    }

    func forget(_ token: String) { renewals.forget(token) }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        status.license = licenseStatus(title)
    }

    /// Whether a renewal of `token` is under way.
    func isRenewing(_ token: String) -> Bool { renewals.isRenewing(token) }

    /// Whether this title's license predates a clock rollback (and so counts as expired until renewed).
    func clockRolledBack(for title: TitleRecord) -> Bool { title.licenseEpoch < epoch() }

    /// The contract's license object.
    func licenseStatus(_ title: TitleRecord) -> LicenseStatus? {
        guard let t = title.licenseTerms else { return nil }
        let u = title.licenseUsage
        // A license with no plays or play time left counts as expired (`renew --expired` picks it up).
        let expired =
            LicensePolicy.refusal(
                t, u, now: context.clock.now(), clockRolledBack: clockRolledBack(for: title), startingPlay: true) != nil
        return LicenseStatus(
            kind: LicenseKind(rawValue: t.kind.rawValue) ?? .none, requestedAt: iso8601(t.requestedAt),
            expiresAt: iso8601(LicensePolicy.effectiveExpiry(t, u)), playDurationSeconds: t.playDurationSeconds,
            playsRemaining: LicensePolicy.playsRemaining(t, u),
            playTimeRemainingSeconds: LicensePolicy.playTimeRemaining(t, u), expired: expired)
    }

    /// Records a granted license; keys are wrapped before they touch the store.
    private func recordLicense(_ grant: LicenseGrant, token: String) throws -> TitleRecord? {
        let store = context.store
        let expected = try store.keys(token: token)
        guard grant.keys.count == expected.count else {
            throw TitleError(
                code: .license,
                message: "license worker returned \(grant.keys.count) keys for \(expected.count) key URIs")
        }
        var wrapped: [Int: Data] = [:]
        for (i, text) in grant.keys.enumerated() {
            let length = PlannedKey.keyLength(method: expected[i].method)
            guard let raw = Data(base64Encoded: text), raw.count == length else {
                throw TitleError(code: .license, message: "key \(i) is not a \(length)-byte \(expected[i].method) key")
            }
            wrapped[i] = try pipeline.vault.wrap(Array(raw), token: token, index: i)
        }
        try store.saveWrappedKeys(token: token, wrapped)
        guard var title = try store.title(token) else { return nil }
        let g = grant.terms
        title.licenseTerms = LicenseTerms(
            kind: LicenseTerms.Kind(rawValue: g.kind.rawValue) ?? .none, requestedAt: g.requestedAt,
            expiresAt: g.expiresAt, playDurationSeconds: g.playDurationSeconds, playCountLimit: g.playCount,
            playTimeLimitSeconds: g.playTimeSeconds, forceExpired: g.forceExpired,
            renewalSuggested: g.renewalSuggested)
        title.licenseEpoch = epoch()
        title.licenseError = nil
        try store.update(title)
        return title
    }

    /// A license result for a title: a renewal changes only its terms; a preload ends licensed; otherwise the
    /// download starts (unless the license would end before it could finish).
    func applyLicense(_ grant: LicenseGrant, token: String) throws {
        guard let before = try context.store.title(token) else { return }
        let renewal = before.licenseTerms != nil
        guard let title = try recordLicense(grant, token: token) else { return }
        renewals.end(token)
        // A renewal leaves the title where it is (downloading, suspended, recording …): only its terms change.
        if title.state == .completed || (renewal && title.state != .licensing) {
            if title.state == .completed || title.state == .licensed { pipeline.leaveQueue(token) }
            let expires = iso8601(grant.terms.expiresAt) ?? "never"
            try context.desk.record(.license(token, "renewed: \(grant.terms.kind.rawValue), expires \(expires)"))
        } else if title.preloadOnly {
            pipeline.leaveQueue(token)
            try pipeline.handle(.preloaded, of: token)
        } else {
            if let refusal = expiresBeforeFinish(title) { return try context.desk.fail(token, refusal) }
            try pipeline.startDownloading(token)
        }
    }

    /// A license that would end before the download could finish refuses the download.
    private func expiresBeforeFinish(_ title: TitleRecord) -> TitleError? {
        guard let t = title.licenseTerms, let end = LicensePolicy.effectiveExpiry(t, title.licenseUsage) else {
            return nil
        }
        let rate = Double(assumedRate() ?? 50_000_000)  // bytes/s: the cap, else an optimistic 50 MB/s
        let finish = context.clock.now() + Double(title.bytesEstimate ?? 0) / rate
        guard end <= finish else { return nil }
        let message =
            "the license ends at \(iso8601(end) ?? "?"), before the download could finish "
            + "(about \(iso8601(finish) ?? "?")): renew it or ask for a longer rental"
        return TitleError(code: .license, message: message)
    }

    /// A license failure after its retries: a first acquisition fails the title (or waits for the network); a
    /// renewal keeps the title and its media and records the error (and runs again when its host answers).
    func licenseFailed(_ failure: TaskFailure, item: WorkItem) throws {
        let token = item.token
        guard var title = try context.store.title(token) else { return }
        if pipeline.retryTask(item, after: failure) { return }
        let unreachable = failure.code == .network && failure.retryable
        let endpoint = failure.endpoint ?? HostProbe.endpoint(of: title.licenseURL ?? title.url)
        if title.licenseTerms != nil {
            renewals.end(token)
            let waits = unreachable && endpoint != nil
            title.licenseError =
                failure.message + (waits ? " (renewal runs again when \(endpoint ?? "") answers)" : "")
            try context.store.update(title)
            if title.state == .completed || title.state == .licensed { pipeline.leaveQueue(token) }
            if waits, let endpoint { try pipeline.renewalWaitsForNetwork(token, endpoint: endpoint) }
            try context.desk.record(.license(token, kind: "license-error", title.licenseError ?? ""))
            // A recording no longer waits for that key.
            if !waits, title.record != nil { try pipeline.checkComplete(token) }
            return
        }
        if unreachable { return try pipeline.suspendForNetwork(token, endpoint: endpoint, message: failure.message) }
        try context.desk.fail(token, TitleError(code: .license, message: failure.message))
    }

    /// Queues a renewal (new terms and license URL optional); media is untouched. A title licensed with operator
    /// keys and no license server is renewed here at once (``renewWithOperatorKeys(_:)``).
    func renew(_ token: String, terms: RequestedTerms?, licenseURL: String?) throws {
        guard var title = try context.store.title(token) else {
            throw TitleError(code: .notFound, message: "no title \(token)")
        }
        let refusal = title.lifecycle.refusal(
            .renew, of: token, recording: title.isRecording, isRecordingTitle: title.record != nil)
        guard title.planned, refusal == nil else {
            throw TitleError(
                code: .refused,
                message: refusal ?? "title \(token) is \(title.state.rawValue): only a licensed title can be renewed")
        }
        if let box = title.transferredTo {
            throw TitleError(
                code: .refused,
                message: "title \(token)'s license was moved to \(box.isEmpty ? "another box" : "box \(box)") "
                    + "(`stowctl export --move`): it is not renewed here")
        }
        if let terms { title.requestedTerms = terms }
        if let licenseURL { title.licenseURL = licenseURL }
        title.licenseError = nil
        try context.store.update(title)
        if try renewWithOperatorKeys(title) { return }
        guard renewals.start(token) else { return }
        pipeline.enqueueRenewal(token, priority: title.priority + 1_000, requestedAt: title.requestedAt)
    }

    /// Automatic renewal a configurable time before expiry (or when the server suggests it).
    private func autoRenew() {
        guard let lead = autoRenewBefore, lead > 0, let titles = try? context.store.titles(state: .completed) else {
            return
        }
        let now = context.clock.now()
        // Operator-key titles are renewed by their operator only: renewing them here would extend a rental forever.
        for title in titles
        where !renewals.isRenewing(title.token) && title.licenseError == nil && !title.isOperatorLicensed
            && title.transferredTo == nil
        {
            guard let t = title.licenseTerms, LicensePolicy.renewalDue(t, title.licenseUsage, now: now, lead: lead),
                now - t.requestedAt >= min(60, lead / 4)
            else { continue }  // not again right after a renewal
            context.logger.info("renewing before expiry", metadata: ["token": "\(title.token)"])
            try? renew(title.token, terms: nil, licenseURL: nil)
        }
    }

    /// The `license` report.
    private func report(_ token: String) throws -> LicenseReport {
        guard let title = try context.store.title(token) else {
            throw TitleError(code: .notFound, message: "no title \(token)")
        }
        let verdict = try playability(title)
        let t = title.licenseTerms
        return LicenseReport(
            token: token, license: licenseStatus(title), licenseURL: title.licenseURL.map(URLRedaction.redacted),
            forceExpired: t?.forceExpired ?? false, renewalSuggested: t?.renewalSuggested ?? false,
            renewing: renewals.isRenewing(token), lastError: title.licenseError, playable: verdict.playable,
            reason: verdict.reason)
    }
}
