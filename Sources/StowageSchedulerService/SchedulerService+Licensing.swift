import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

extension SchedulerService {
    /// Seconds the wall clock may go back before time-limited licenses count as expired.
    static let clockTolerance: Double = 300
    /// The store keys of the clock guard's epoch and latest time seen.
    static let clockEpochSetting = "clock.epoch"
    static let clockLastSeenSetting = "clock.lastSeen"

    /// The granted terms in force for a title, if licensed.
    func terms(of title: TitleRecord) -> LicenseTerms? {
        title.licenseTerms
    }

    func usage(of title: TitleRecord) -> LicenseUsage {
        title.licenseUsage
    }

    /// Whether this title's license predates a clock rollback (and so counts as expired until renewed).
    func clockRolledBack(for title: TitleRecord) -> Bool { title.licenseEpoch < memory.clockEpoch.epoch }

    /// The contract's license object.
    func licenseStatus(_ title: TitleRecord) -> LicenseStatus? {
        guard let t = terms(of: title) else { return nil }
        let u = usage(of: title)
        // A license with no plays or play time left counts as expired (`renew --expired` picks it up).
        let expired =
            LicensePolicy.refusal(
                t, u, now: clock.now(), clockRolledBack: clockRolledBack(for: title),
                startingPlay: true) != nil
        return LicenseStatus(
            kind: LicenseKind(rawValue: t.kind.rawValue) ?? .none, requestedAt: iso8601(t.requestedAt),
            expiresAt: iso8601(LicensePolicy.effectiveExpiry(t, u)), playDurationSeconds: t.playDurationSeconds,
            playsRemaining: LicensePolicy.playsRemaining(t, u),
            playTimeRemainingSeconds: LicensePolicy.playTimeRemaining(t, u),
            expired: expired)
    }

    /// Records a granted license; keys are wrapped before they touch the store.
    func recordLicense(_ grant: LicenseGrant, token: String) throws -> TitleRecord? {
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
            wrapped[i] = try vault.wrap(Array(raw), token: token, index: i)
        }
        try store.saveWrappedKeys(token: token, wrapped)
        guard var title = try store.title(token) else { return nil }
        let g = grant.terms
        let terms = LicenseTerms(
            kind: LicenseTerms.Kind(rawValue: g.kind.rawValue) ?? .none, requestedAt: g.requestedAt,
            expiresAt: g.expiresAt,
            playDurationSeconds: g.playDurationSeconds, playCountLimit: g.playCount,
            playTimeLimitSeconds: g.playTimeSeconds,
            forceExpired: g.forceExpired, renewalSuggested: g.renewalSuggested)
        title.licenseTerms = terms
        title.licenseEpoch = memory.clockEpoch.epoch
        title.licenseError = nil
        try store.update(title)
        return title
    }

    /// A license result for a title that already had one (renewal) or that was only preloaded.
    func applyLicense(_ grant: LicenseGrant, token: String) throws {
        guard let before = try store.title(token) else { return }
        let renewal = before.licenseTerms != nil
        guard let title = try recordLicense(grant, token: token) else { return }
        memory.renewals.end(token)
        // A renewal leaves the title where it is (downloading, suspended, recording …): only its terms change.
        if title.state == .completed || (renewal && title.state != .licensing) {
            if title.state == .completed || title.state == .licensed { _ = core.dropTitle(token) }
            try record(
                .license(
                    token, "renewed: \(grant.terms.kind.rawValue), expires \(iso8601(grant.terms.expiresAt) ?? "never")"
                ))
        } else if title.preloadOnly {
            _ = core.dropTitle(token)
            try handle(.preloaded, of: token)
        } else {
            if let refusal = try expiresBeforeFinish(title) { return try fail(token, refusal) }
            try startDownloading(token)
        }
    }

    /// A license that would end before the download could finish refuses the download.
    private func expiresBeforeFinish(_ title: TitleRecord) throws -> TitleError? {
        guard let t = terms(of: title), let end = LicensePolicy.effectiveExpiry(t, usage(of: title)) else { return nil }
        let rate = Double(memory.limits.bandwidth ?? 50_000_000)  // bytes/s: the cap, else an optimistic 50 MB/s
        let finish = clock.now() + Double(title.bytesEstimate ?? 0) / rate
        guard end <= finish else { return nil }
        let message =
            "the license ends at \(iso8601(end) ?? "?"), before the download could finish "
            + "(about \(iso8601(finish) ?? "?")): renew it or ask for a longer rental"
        return TitleError(code: .license, message: message)
    }

    /// A license failure: a first acquisition fails the title (after retries); a renewal keeps the title
    /// and its media and records the error.
    func licenseFailed(_ failure: TaskFailure, lease: Lease) throws {
        let token = lease.item.token
        guard var title = try store.title(token) else { return }
        if try refreshKeysAfterRefusal(token, failure) { return }
        let n = memory.retries.failed(lease.item)
        if failure.retryable && n < options.maxAttempts {
            memory.retries.schedule(lease.item, at: clock.monotonic() + max(backoff(n), failure.retryAfter ?? 0))
            return
        }
        memory.retries.resetAttempts(lease.item)
        let unreachable = failure.code == .network && failure.retryable
        let endpoint = failure.endpoint ?? HostProbe.endpoint(of: title.licenseURL ?? title.url)
        if title.licenseTerms != nil {
            if unreachable, let endpoint {
                memory.renewals.end(token)
                title.licenseError = failure.message + " (renewal runs again when \(endpoint) answers)"
                try store.update(title)
                if title.state == .completed || title.state == .licensed { _ = core.dropTitle(token) }
                try renewalWaitsForNetwork(token, endpoint: endpoint)
                try record(.license(token, kind: "license-error", title.licenseError ?? ""))
                return
            }
            memory.renewals.end(token)
            title.licenseError = failure.message
            try store.update(title)
            if title.state == .completed || title.state == .licensed { _ = core.dropTitle(token) }
            try record(.license(token, kind: "license-error", failure.message))
            if title.record != nil { try checkComplete(token) }  // a recording no longer waits for that key
            return
        }
        if unreachable { return try suspendForNetwork(token, endpoint: endpoint, message: failure.message) }
        try fail(token, TitleError(code: .license, message: failure.message))
    }

    /// Queues a renewal (new terms and license URL optional); media is untouched. A title licensed with operator
    /// keys (`submit --key`) and no license server is renewed here at once (see ``renewWithOperatorKeys(_:)``).
    func renew(_ token: String, terms: RequestedTerms?, licenseURL: String?) throws {
        guard var title = try store.title(token) else { throw unknownTitle(token) }
        guard title.planned,
            [.completed, .licensed, .recording, .downloading, .verifying, .suspended].contains(title.state)
        else {
            throw TitleError(
                code: .refused,
                message: "title \(token) is \(title.state.rawValue): only a licensed title can be renewed")
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
        try store.update(title)
        if try renewWithOperatorKeys(title) { return }
        guard memory.renewals.start(token) else { return }
        core.addTitle(token, priority: title.priority + 1_000, requestedAt: title.requestedAt)
        core.enqueue(WorkItem(token: token, kind: .license))
    }

    /// The clock guard: persists the latest time seen; a jump back beyond the tolerance starts a new epoch.
    func checkClock() {
        let t = clock.now()
        switch memory.clockEpoch.observe(now: t) {
        case .rolledBack(let last):
            try? store.setSetting(Self.clockEpochSetting, "\(memory.clockEpoch.epoch)")
            logger.warning(
                "the wall clock went back: time-limited licenses count as expired until renewed",
                metadata: ["lastSeen": "\(iso8601(last) ?? "?")", "now": "\(iso8601(t) ?? "?")"])
            try? store.setSetting(Self.clockLastSeenSetting, "\(t)")
        case .advanced:
            try? store.setSetting(Self.clockLastSeenSetting, "\(t)")
        case .none:
            break
        }
    }

    /// Automatic renewal a configurable time before expiry (or when the server suggests it).
    func autoRenew() {
        guard let lead = options.autoRenewBefore, lead > 0, let titles = try? store.titles(state: .completed) else {
            return
        }
        // Operator-key titles are renewed by their operator only: renewing them here would extend a rental forever.
        for title in titles
        where !memory.renewals.isRenewing(title.token) && title.licenseError == nil && !isOperatorLicensed(title)
            && title.transferredTo == nil
        {
            guard let t = terms(of: title), LicensePolicy.renewalDue(t, usage(of: title), now: clock.now(), lead: lead),
                clock.now() - t.requestedAt >= min(60, lead / 4)
            else { continue }  // not again right after a renewal
            logger.info("renewing before expiry", metadata: ["token": "\(title.token)"])
            try? renew(title.token, terms: nil, licenseURL: nil)
        }
    }

    /// The `license` report.
    func licenseReport(_ token: String) throws -> LicenseReport {
        guard let title = try store.title(token) else { throw unknownTitle(token) }
        let verdict = try playability(title, startingPlay: true)
        let t = terms(of: title)
        return LicenseReport(
            token: token, license: licenseStatus(title), licenseURL: title.licenseURL.map(URLRedaction.redacted),
            forceExpired: t?.forceExpired ?? false, renewalSuggested: t?.renewalSuggested ?? false,
            renewing: memory.renewals.isRenewing(token), lastError: title.licenseError, playable: verdict.playable,
            reason: verdict.reason)
    }
}
