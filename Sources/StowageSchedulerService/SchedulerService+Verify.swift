import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageScheduling
import StowageStore

extension SchedulerService {
    /// A verification of a completed title in progress.
    struct VerifyRun {
        var repair: Bool
        var bad: [String] = []
        /// A background scrub (I/O budget applies).
        var scrub = false
    }

    /// Background scrub: one completed title at a time, the one verified longest ago, once per interval.
    func scrub() {
        guard let interval = options.scrubInterval, interval > 0, !verifyRuns.values.contains(where: \.scrub),
              let titles = try? store.titles(state: .completed) else { return }
        let t = now()
        let due = titles.filter { $0.errorCode == nil && t - (lastScrubbed[$0.token] ?? $0.endedAt ?? 0) >= interval }
        guard let title = due.min(by: { (lastScrubbed[$0.token] ?? $0.endedAt ?? 0) < (lastScrubbed[$1.token] ?? $1.endedAt ?? 0) }) else { return }
        lastScrubbed[title.token] = t
        logger.info("scrub: verifying at rest", metadata: ["token": "\(title.token)"])
        do {
            try startVerify(title.token, repair: false, scrub: true)
        } catch {
            logger.warning("scrub could not start", metadata: ["token": "\(title.token)", "error": "\(error)"])
        }
    }

    /// `verify`: every file goes back to the integrity workers; with `repair`, bad ones are fetched again.
    /// A scrub leaves the title `completed` (and playable) while it runs.
    func startVerify(_ token: String, repair: Bool, scrub: Bool = false) throws {
        guard let title = try store.title(token) else { throw unknownTitle(token) }
        guard title.titleState == .completed else {
            throw TitleError(code: .refused, message: "title \(token) is \(title.state): only completed titles are verified at rest")
        }
        if repair, let t = terms(of: title),
           let reason = LicensePolicy.refusal(t, usage(of: title), now: now(), clockRolledBack: clockRolledBack(for: title), startingPlay: false) {
            throw TitleError(code: .license, message: "cannot repair: \(reason)")
        }
        if scrub {
            verifyRuns[token] = VerifyRun(repair: false, scrub: true)
            core.addTitle(token, priority: title.priority - 1_000, requestedAt: title.requestedAt)
            for r in try store.resources(token: token) where r.bytes != nil {
                core.enqueue(WorkItem(token: token, kind: .verify(resource: r.id!)))
            }
            return
        }
        var record = title
        record.errorCode = nil
        record.errorMessage = nil
        try store.update(record)
        verifyRuns[token] = VerifyRun(repair: repair)
        core.addTitle(token, priority: title.priority + 1_000, requestedAt: title.requestedAt)
        for var r in try store.resources(token: token) {
            r.state = r.bytes == nil ? ResourceState.pending.rawValue : ResourceState.fetched.rawValue
            try store.update(r)
            core.enqueue(r.bytes == nil ? fetchItem(r) : WorkItem(token: token, kind: .verify(resource: r.id!)))
        }
        try transition(token, to: .verifying)
    }

    /// A verification result during a verify run without repair: a bad file is recorded, not fetched.
    /// Returns false when the result should take the normal path (download, or repair).
    func recordVerifyResult(_ resource: ResourceRecord, ok: Bool, reason: String?) throws -> Bool {
        guard var run = verifyRuns[resource.token], !run.repair, !ok else { return false }
        run.bad.append(reason ?? resource.localPath)
        verifyRuns[resource.token] = run
        try finishVerifyIfDone(resource.token)
        return true
    }

    /// When a verify run has nothing left: completed again, or completed with an integrity error listing
    /// the bad files (and so not playable).
    func finishVerifyIfDone(_ token: String) throws {
        guard let run = verifyRuns[token], !core.hasWork(token) else { return }
        if run.bad.isEmpty {
            if run.scrub {   // a clean scrub: nothing changes but the record of it
                verifyRuns[token] = nil
                _ = core.dropTitle(token)
                try store.appendEvent(token: token, kind: "scrub", detail: "every file verified at rest")
            }
            return // a verify run: checkComplete completes it
        }
        verifyRuns[token] = nil
        _ = core.dropTitle(token)
        guard var title = try store.title(token) else { return }
        title.state = TitleState.completed.rawValue
        title.errorCode = ErrorCode.integrity.rawValue
        title.errorMessage = "\(run.bad.count) file(s) failed verification: " + run.bad.prefix(20).joined(separator: "; ")
            + (run.bad.count > 20 ? "; …" : "") + ". Run `stowctl verify \(token) --repair` to fetch them again."
        try store.update(title)
        try store.appendEvent(token: token, kind: "verify", detail: title.errorMessage ?? "")
        publish(token, kind: "state")
    }

    /// `gc`: folders under `titles/` the store does not know, and partial files of titles not downloading.
    func collectGarbage() throws -> [String] {
        let root = options.home.titlesRoot
        var removed: [String] = []
        let known = Dictionary(uniqueKeysWithValues: try store.titles().map { ($0.token, $0.titleState) })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            let dir = root.appendingPathComponent(name)
            guard let state = known[name] else {
                try? FileManager.default.removeItem(at: dir)
                removed.append(dir.path)
                continue
            }
            guard [.completed, .canceled, .failed].contains(state), let walker = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".part") || path.hasSuffix(".part.meta") {
                try? FileManager.default.removeItem(at: dir.appendingPathComponent(path))
                removed.append(dir.appendingPathComponent(path).path)
            }
        }
        logger.info("gc", metadata: ["removed": "\(removed.count)"])
        return removed
    }
}
