import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Waiting for the network: connectivity failures never fail a title (unless `--give-up-after` says so).
/// When a title's retry budget is spent on them it is `suspended` with reason `network`, the unreachable
/// host is probed with capped backoff, and every title (and license renewal) waiting on it carries on as
/// soon as it answers, however long the outage.
extension SchedulerService {
    /// Suspends a title until `endpoint` answers again.
    func suspendForNetwork(_ token: String, endpoint: String?, message: String) throws {
        guard let endpoint else {
            return try fail(token, TitleError(code: .network, message: message))
        }
        logger.warning(
            "origin unreachable: the title waits for the network",
            metadata: [
                "token": "\(token)", "host": "\(endpoint)", "error": "\(message)",
            ])
        try suspend(
            token, reason: .network, waitingHost: endpoint,
            error: TitleError(code: .network, message: "\(message); waiting for \(endpoint) to answer"))
        memory.network.hosts.unreachable(endpoint, now: clock.monotonic())
    }

    /// A license renewal could not reach its server: the title keeps its state and license; the renewal runs
    /// again when the host answers.
    func renewalWaitsForNetwork(_ token: String, endpoint: String) throws {
        guard var title = try store.title(token) else { return }
        title.waitingHost = endpoint
        try store.update(title)
        memory.network.hosts.unreachable(endpoint, now: clock.monotonic())
        logger.warning(
            "license server unreachable: the renewal waits for the network",
            metadata: ["token": "\(token)", "host": "\(endpoint)"])
    }

    /// Start-up: hosts that titles were waiting for before the restart are probed again; the outage
    /// counts from when the title was suspended.
    func watchWaitingHosts() throws {
        let t = clock.monotonic(), wall = clock.now()
        for title in try store.titlesWaitingForHosts() {
            guard let host = title.waitingHost else { continue }
            let waited = max(0, wall - (title.suspendedAt ?? wall))
            memory.network.hosts.unreachable(host, now: t, since: t - waited)
        }
    }

    /// Every tick: starts due probes and acts on their answers.
    func watchNetwork(now t: Double) {
        for (endpoint, reachable) in self.endpoint.probeInbox.take() {
            if memory.network.hosts.probed(endpoint, reachable: reachable, now: t) {
                logger.info("host answers again: resuming what waited for it", metadata: ["host": "\(endpoint)"])
                do { try resumeWaiting(on: endpoint) } catch {
                    logger.error("cannot resume titles waiting for \(endpoint)", metadata: ["error": "\(error)"])
                }
            } else if let entry = memory.network.hosts.hosts[endpoint] {
                logger.info(
                    "host still unreachable",
                    metadata: [
                        "host": "\(endpoint)", "probes": "\(entry.failures)",
                        "nextProbeInSeconds": "\(Int((entry.nextProbe - t).rounded()))",
                    ])
            }
        }
        for endpoint in memory.network.hosts.due(now: t) { HostProbe.start(endpoint, inbox: self.endpoint.probeInbox) }
    }

    /// The host answered: suspended titles waiting for it resume, renewals waiting for it run.
    func resumeWaiting(on endpoint: String) throws {
        memory.network.failures.answered(endpoint)
        for var title in try store.titlesWaitingForHosts() where title.waitingHost == endpoint {
            if title.state == .suspended && title.suspendedReason == .network {
                try resume(title.token)
            } else {
                title.waitingHost = nil
                try store.update(title)
                if title.licenseError != nil { try? licensing?.renew(title.token, terms: nil, licenseURL: nil) }
            }
        }
    }

    /// `--give-up-after`: titles that waited longer fail with `network`.
    func giveUpWaiting(now t: Double) {
        guard let limit = options.giveUpAfter else { return }
        for (endpoint, entry) in memory.network.hosts.hosts where t - entry.since >= limit {
            memory.network.hosts.forget(endpoint)
            guard let titles = try? store.titlesWaitingForHosts() else { return }
            for title in titles where title.waitingHost == endpoint && title.state == .suspended {
                let message = "\(endpoint) did not answer for \(Int(limit)) s (stowage-scheduler --give-up-after)"
                try? fail(title.token, TitleError(code: .network, message: message))
            }
        }
    }

    /// When the next probe of the host a title waits for is due (wall clock, for `status`).
    func nextProbe(of endpoint: String) -> Double? {
        memory.network.hosts.hosts[endpoint].map { clock.now() + max(0, $0.nextProbe - clock.monotonic()) }
    }
}
