import Foundation
import StowageIntegrity
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

extension SchedulerService {
    /// Background scrub: one completed title at a time, the one verified longest ago, once per interval.
    func scrub() {
        guard let interval = options.scrubInterval, interval > 0, !memory.verifyRuns.scrubRunning,
            let titles = try? store.titles(state: .completed)
        else { return }
        let candidates = titles.filter { $0.errorCode == nil }.map {
            VerifyRuns.Candidate(token: $0.token, endedAt: $0.endedAt)
        }
        guard let token = memory.verifyRuns.nextScrub(among: candidates, now: clock.now(), interval: interval) else {
            return
        }
        logger.info("scrub: verifying at rest", metadata: ["token": "\(token)"])
        do {
            try startVerify(token, repair: false, scrub: true)
        } catch {
            logger.warning("scrub could not start", metadata: ["token": "\(token)", "error": "\(error)"])
        }
    }

    /// `verify`: every file goes back to the integrity workers; with `repair`, bad ones are fetched again.
    /// A scrub leaves the title `completed` (and playable) while it runs.
    func startVerify(_ token: String, repair: Bool, scrub: Bool = false) throws {
        guard let title = try store.title(token) else { throw unknownTitle(token) }
        guard title.state == .completed else {
            throw TitleError(
                code: .refused,
                message: "title \(token) is \(title.state.rawValue): only completed titles are verified at rest")
        }
        if repair, let t = terms(of: title),
            let reason = LicensePolicy.refusal(
                t, usage(of: title), now: clock.now(), clockRolledBack: clockRolledBack(for: title), startingPlay: false
            )
        {
            throw TitleError(code: .license, message: "cannot repair: \(reason)")
        }
        if scrub {
            memory.verifyRuns.start(token, repair: false, scrub: true)
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
        memory.verifyRuns.start(token, repair: repair)
        core.addTitle(token, priority: title.priority + 1_000, requestedAt: title.requestedAt)
        for var r in try store.resources(token: token) where r.state != .gap {  // a recording's gaps stay gaps
            r.state = r.bytes == nil ? .pending : .fetched
            try store.update(r)
            core.enqueue(r.bytes == nil ? fetchItem(r) : WorkItem(token: token, kind: .verify(resource: r.id!)))
        }
        try handle(.reverify, of: token)
    }

    /// A verification result during a verify run without repair: a bad file is recorded, not fetched.
    /// Returns false when the result should take the normal path (download, or repair).
    func recordVerifyResult(_ resource: ResourceRecord, ok: Bool, reason: String?) throws -> Bool {
        guard !ok, memory.verifyRuns.recordFailure(resource.token, reason: reason ?? resource.localPath) else {
            return false
        }
        try finishVerifyIfDone(resource.token)
        return true
    }

    /// When a verify run has nothing left: completed again, or completed with an integrity error listing
    /// the bad files (and so not playable).
    func finishVerifyIfDone(_ token: String) throws {
        guard memory.verifyRuns[token] != nil, !core.hasWork(token) else { return }
        // A clean verify run (not a scrub) is left to checkComplete, which completes it.
        switch memory.verifyRuns.finish(token) {
        case nil:
            return
        case .cleanScrub:  // nothing changes but the record of it
            _ = core.dropTitle(token)
            try record(TitleHappening(token, kind: "scrub", detail: "every file verified at rest"))
            return
        case .badFiles(let bad):
            _ = core.dropTitle(token)
            let message =
                "\(bad.count) file(s) failed verification: " + bad.prefix(20).joined(separator: "; ")
                + (bad.count > 20 ? "; …" : "") + ". Run `stowctl verify \(token) --repair` to fetch them again."
            try handle(.badFilesFound(TitleError(code: .integrity, message: message)), of: token)
            try record(TitleHappening(token, kind: "verify", detail: message, published: "state"))
        }
    }

    /// `gc`: folders under `titles/` the store does not know, and partial files of titles not downloading.
    func collectGarbage() throws -> [String] {
        let root = options.home.titlesRoot
        var removed: [String] = []
        let known = Dictionary(uniqueKeysWithValues: try store.titles().map { ($0.token, $0.state) })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            let dir = root.appendingPathComponent(name)
            if bundles?.isStaging(name) == true { continue }  // an import being checked
            guard let state = known[name] else {
                try? FileManager.default.removeItem(at: dir)
                removed.append(dir.path)
                continue
            }
            guard [.completed, .canceled, .failed].contains(state),
                let walker = FileManager.default.enumerator(atPath: dir.path)
            else { continue }
            for case let path as String in walker where FetchLeftovers.isLeftover(path) {
                try? FileManager.default.removeItem(at: dir.appendingPathComponent(path))
                removed.append(dir.appendingPathComponent(path).path)
            }
        }
        logger.info("gc", metadata: ["removed": "\(removed.count)"])
        return removed
    }
}
