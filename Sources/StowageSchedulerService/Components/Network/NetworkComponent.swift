import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Waiting for the network: connectivity failures never fail a title (unless `--give-up-after` says so). When a
/// title's retry budget is spent on them it waits (`network`), the unreachable host is probed with capped backoff
/// (``HostProbe``, off the loop, answers through a ``Mailbox``), and every title (and license renewal) waiting on
/// it carries on as soon as it answers, however long the outage.
final class NetworkComponent: SchedulerComponent, SuspensionOwner {
    let name = "network"
    let owns = SuspendedReason.network
    private let context: ComponentContext
    /// Renews a license whose renewal waited for the host that answered.
    private let renew: (String) -> Void
    /// `--give-up-after` (seconds; nil: titles wait for ever).
    private let giveUpAfter: Double?
    /// Hosts probed, and failures in a row per host.
    private var watch = NetworkWatch()
    /// What the probes found, posted from their threads.
    let probes = Mailbox<(endpoint: String, reachable: Bool)>()
    private var giveUpDue = Every(seconds: 2)
    /// Titles trying again after a connectivity failure, not yet waiting: shown from the first failed attempt.
    private var retrying: [String: ConnectivityRetry] = [:]

    init(context: ComponentContext, giveUpAfter: Double?, renew: @escaping (String) -> Void) {
        self.context = context
        self.giveUpAfter = giveUpAfter
        self.renew = renew
    }

    /// Start-up: hosts that titles were waiting for before the restart are probed again; the outage counts from
    /// when the title was suspended.
    func start() throws {
        let t = context.clock.monotonic(), wall = context.clock.now()
        for title in try context.store.titlesWaitingForHosts() {
            guard let host = title.waitingHost else { continue }
            let waited = max(0, wall - (title.suspendedAt ?? wall))
            watch.hosts.unreachable(host, now: t, since: t - waited)
        }
    }

    /// Every pass: the probes' answers acted on, due probes started; every 2 s, waits past `--give-up-after` fail.
    func tick(now t: Double) {
        for (endpoint, reachable) in probes.take() {
            if watch.hosts.probed(endpoint, reachable: reachable, now: t) {
                context.logger.info(
                    "host answers again: resuming what waited for it", metadata: ["host": "\(endpoint)"])
                do { try resumeWaiting(on: endpoint) } catch {
                    context.logger.error(
                        "cannot resume titles waiting for \(endpoint)", metadata: ["error": "\(error)"])
                }
            } else if let entry = watch.hosts.hosts[endpoint] {
                context.logger.info(
                    "host still unreachable",
                    metadata: [
                        "host": "\(endpoint)", "probes": "\(entry.failures)",
                        "nextProbeInSeconds": "\(Int((entry.nextProbe - t).rounded()))",
                    ])
            }
        }
        for endpoint in watch.hosts.due(now: t) { HostProbe.start(endpoint, inbox: probes) }
        if giveUpDue.isDue(now: t) { giveUpWaiting(now: t) }
    }

    /// The host a waiting title names, and when it is probed next; a title still trying after a connectivity
    /// failure names the host, its next attempt and the failure.
    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        if [.requested, .licensing, .downloading].contains(title.state), let retry = retrying[title.token],
            context.clock.monotonic() < retry.nextAttempt + ConnectivityRetry.staleAfter
        {
            status.waitingFor = retry.host
            status.nextProbeAt = iso8601(context.clock.now() + max(0, retry.nextAttempt - context.clock.monotonic()))
            if status.error == nil { status.error = retry.error }
            return
        }
        guard title.state == .suspended, title.suspendedReason == .network, let host = title.waitingHost else { return }
        status.waitingFor = host
        status.nextProbeAt = iso8601(
            watch.hosts.hosts[host].map { context.clock.now() + max(0, $0.nextProbe - context.clock.monotonic()) })
    }

    /// A task or file of `token` failed for connectivity at `host` and is tried again in `delay` seconds.
    func retrying(_ token: String, host: String?, message: String, attempts: Int, in delay: Double) {
        guard let host else { return }
        retrying[token] = ConnectivityRetry(
            host: host, message: message, attempts: attempts, nextAttempt: context.clock.monotonic() + delay)
    }

    /// A move of the title's lifecycle ends its run of failed attempts (it went on, or now waits or failed).
    func observe(_ event: TitleHappening) throws {
        if event.kind == "state" { retrying[event.token] = nil }
    }

    func forget(_ token: String) { retrying[token] = nil }

    /// An operator's resume of a title waiting for its host: always admitted (it waits again if the host is still
    /// away).
    func resumeRefusal(_ title: TitleRecord) throws -> String? { nil }

    /// Suspends a title until `endpoint` answers again (fails it when no host is known).
    func suspend(_ token: String, endpoint: String?, message: String) throws {
        guard let endpoint else {
            return try context.desk.fail(token, TitleError(code: .network, message: message))
        }
        context.logger.warning(
            "origin unreachable: the title waits for the network",
            metadata: ["token": "\(token)", "host": "\(endpoint)", "error": "\(message)"])
        try context.desk.suspend(
            token, reason: .network, waitingHost: endpoint,
            error: TitleError(code: .network, message: "\(message); waiting for \(endpoint) to answer"))
        watch.hosts.unreachable(endpoint, now: context.clock.monotonic())
    }

    /// A license renewal could not reach its server: the title keeps its state and license; the renewal runs
    /// again when the host answers.
    func renewalWaits(_ token: String, endpoint: String) throws {
        guard var title = try context.store.title(token) else { return }
        title.waitingHost = endpoint
        try context.store.update(title)
        watch.hosts.unreachable(endpoint, now: context.clock.monotonic())
        context.logger.warning(
            "license server unreachable: the renewal waits for the network",
            metadata: ["token": "\(token)", "host": "\(endpoint)"])
    }

    /// A fetch from `host` failed for connectivity: the failures in a row there (counted once the host has failed
    /// for a while, so a blip of a second suspends nothing).
    func failed(_ host: String) -> Int { watch.failures.failed(host, now: context.clock.monotonic()) }

    /// A file's attempt at `url` failed with `code`: connectivity is the host's, not the file's, so a network failure
    /// counts against its host (`endpoint`, else the URL's) and answers its failures in a row; any other failure
    /// (an HTTP status, a bad file) is an answer: the host is reachable (0).
    func attemptFailed(code: ErrorCode, endpoint: String?, url: String) -> Int {
        if code == .network, let host = endpoint ?? HostProbe.endpoint(of: url) { return failed(host) }
        if anyFailing, let host = HostProbe.endpoint(of: url) { answered(host) }
        return 0
    }

    /// Whether any host is failing now (a fetch's answer is worth noting only then).
    var anyFailing: Bool { !watch.failures.isEmpty }

    /// `host` answered (an HTTP status, a file, even a bad one): it is reachable.
    func answered(_ host: String) {
        if !watch.failures.isEmpty { watch.failures.answered(host) }
        if !retrying.isEmpty { retrying = retrying.filter { $0.value.host != host } }
    }

    /// The host answered: suspended titles waiting for it resume, renewals waiting for it run.
    private func resumeWaiting(on endpoint: String) throws {
        answered(endpoint)
        for var title in try context.store.titlesWaitingForHosts() where title.waitingHost == endpoint {
            if title.state == .suspended && title.suspendedReason == .network {
                try context.desk.resume(title.token)
            } else {
                title.waitingHost = nil
                try context.store.update(title)
                if title.licenseError != nil { renew(title.token) }
            }
        }
    }

    /// `--give-up-after`: titles that waited longer fail with `network`.
    private func giveUpWaiting(now t: Double) {
        guard let limit = giveUpAfter else { return }
        for (endpoint, entry) in watch.hosts.hosts where t - entry.since >= limit {
            watch.hosts.forget(endpoint)
            guard let titles = try? context.store.titlesWaitingForHosts() else { return }
            for title in titles where title.waitingHost == endpoint && title.state == .suspended {
                let message = "\(endpoint) did not answer for \(Int(limit)) s (stowage-scheduler --give-up-after)"
                try? context.desk.fail(title.token, TitleError(code: .network, message: message))
            }
        }
    }
}
