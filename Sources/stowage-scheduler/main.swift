import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageSchedulerService

/// `stowage-scheduler`: the store, the limits, the leases and recovery, behind one ZeroMQ ROUTER.
struct SchedulerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-scheduler",
        abstract: "Owns Stowage's store, limits, leases and recovery; workers and stowctl connect to it over ZeroMQ.",
        discussion: """
            Binds ipc://$STOWAGE_HOME/run/scheduler.ipc, plus any --bind endpoint (e.g. tcp://0.0.0.0:7700 for \
            workers on other hosts). tcp endpoints are always CURVE-encrypted: the scheduler's key pair \
            (--curve-key) and an allow-list of worker and client public keys (--allow-keys); an unknown key is \
            refused and logged. Every option may also come from STOWAGE_<OPTION> (flags win).

            SIGTERM stops it gracefully; a restart (even after kill -9) resumes every unfinished title.
            """)

    @OptionGroup(title: "Process options")
    var process: ProcessOptions
    @Option(help: "An extra endpoint to bind, e.g. tcp://0.0.0.0:7700 (repeatable).")
    var bind: [String] = []
    @Option(
        name: .customLong("allow-keys"),
        help: """
            Public keys allowed over tcp: a file (one key per line) or a directory of .pub files, re-read at every \
            connection. In a directory, the folder of a key is its role: worker/, gateway/ or operator/ (a .pub \
            directly in it is an operator's); a request outside the role is refused as forbidden. Default: \
            $STOWAGE_HOME/keys/allowed.
            """)
    var allowKeys: String?
    @Option(
        name: .customLong("allow-hosts"),
        help: """
            Fetch only from these origin hosts: comma-separated names or addresses, *.example.com for a whole \
            domain (default: any host). Checked on submit and on every request and redirect.
            """)
    var allowHosts: String?
    @Option(
        name: .customLong("allow-networks"),
        help: """
            Address ranges every title may fetch from, whatever its source (comma-separated CIDR, e.g. \
            10.20.0.0/16 for a LAN CDN that public playlists name). Otherwise a title reaches no address deeper in \
            than its source's (public < private < loopback), and never link-local, multicast or unspecified ones.
            """)
    var allowNetworks: String?
    @Option(
        name: .customLong("deny-networks"),
        help: """
            Address ranges no title may fetch from (comma-separated CIDR, e.g. the box's management subnet); \
            wins over --allow-networks. Checked on the address each request connects to, after every redirect.
            """)
    var denyNetworks: String?
    @Option(
        help: """
            Titles downloading at once (default 2). Limits given at start override, for this run, those stored \
            with `stowctl limits`.
            """)
    var titles: Int?
    @Option(name: .customLong("per-title"), help: "Segment fetches in flight per title (default 6).")
    var perTitle: Int?
    @Option(
        name: .customLong("per-host"),
        help: "Requests in flight to one origin host across all workers (default 8).")
    var perHost: Int?
    @Option(help: "License requests in flight at once (default 4).")
    var licenses: Int?
    @Option(help: "Global download rate cap in bytes/s, split across download workers (default: none).")
    var bandwidth: Int64?
    @Option(
        name: .customLong("disk-cushion"),
        help: "Bytes always kept free where titles are stored (default 1073741824 = 1 GiB).")
    var diskCushion: Int64?
    @Option(
        name: .customLong("give-up-after"),
        help: """
            Fail a title that has waited this long for an unreachable origin or license server (90s, 15m, 24h, \
            30d). Default: never; it resumes by itself when the host answers.
            """)
    var giveUpAfter: String?
    @Option(
        name: .customLong("auto-renew-before"),
        help: "Renew time-limited licenses automatically this many seconds before they end (default: never).")
    var autoRenewBefore: Double?
    @Option(
        name: .customLong("scrub-interval"),
        help: "Re-verify completed titles at rest this often, in seconds (default: never).")
    var scrubInterval: Double?
    @Option(
        name: .customLong("scrub-budget"),
        help: "Bytes per second the background scrub may read (default: no limit).")
    var scrubBudget: Int64?
    @Option(
        help: """
            Bytes all titles together may hold: plain bytes or 500M, 2G, 1.5T (default: no quota). A title that \
            does not fit evicts completed titles (removed from the catalogue first, then the least recently \
            played; never a pinned one or one being played) or waits as suspended (quota).
            """)
    var quota: String?
    @Option(
        name: .customLong("evict-protect"),
        help: "A title played within this long is never evicted for the quota (90s, 15m, 24h; default 1h).")
    var evictProtect: String?

    @OptionGroup(title: "Catalogue")
    var catalog: CatalogFlags
    @OptionGroup(title: "Fill windows")
    var fill: FillFlags
    @OptionGroup(title: "Notifications")
    var notify: NotifyFlags
    @OptionGroup(title: "Slow answers")
    var pace: PaceFlags

    func run() async throws {
        process.bootstrapLogging()
        let logger = Logger(label: "stowage.scheduler")
        let home = process.stowageHome
        let binds = bind.isEmpty ? (environmentOption("bind").map { [$0] } ?? []) : bind
        // Given at start: overrides the limits stored with `stowctl limits` for this run (and says so in the log).
        let overrides = LimitSettings(
            titles: titles ?? environmentOption("titles").flatMap { Int($0) },
            perTitle: perTitle ?? environmentOption("per-title").flatMap { Int($0) },
            perHost: perHost ?? environmentOption("per-host").flatMap { Int($0) },
            licenses: licenses ?? environmentOption("licenses").flatMap { Int($0) },
            bandwidth: bandwidth ?? environmentOption("bandwidth").flatMap { Int64($0) },
            diskCushion: diskCushion ?? environmentOption("disk-cushion").flatMap { Int64($0) })
        if let refusal = overrides.refusal() { throw ValidationError(refusal) }
        var options = SchedulerService.Options(home: home, binds: binds, limitOverrides: overrides)
        if let text = giveUpAfter ?? environmentOption("give-up-after") {
            guard let seconds = parseDuration(text), seconds > 0 else {
                throw ValidationError("--give-up-after '\(text)' is not a duration like 90s, 15m, 24h or 30d")
            }
            options.giveUpAfter = seconds
        }
        options.autoRenewBefore = autoRenewBefore ?? environmentOption("auto-renew-before").flatMap { Double($0) }
        options.scrubInterval = scrubInterval ?? environmentOption("scrub-interval").flatMap { Double($0) }
        options.scrubBytesPerSecond = scrubBudget ?? environmentOption("scrub-budget").flatMap { Int64($0) }
        options.catalog = try catalog.options(logger: logger)
        try fill.apply(to: &options)
        if let text = quota ?? environmentOption("quota") {
            guard let bytes = parseByteSize(text), bytes > 0 else {
                throw ValidationError("--quota '\(text)' is not a size like 1073741824, 500M, 2G or 1.5T")
            }
            options.quota = bytes
        }
        if let text = evictProtect ?? environmentOption("evict-protect") {
            guard let seconds = parseDuration(text) else {
                throw ValidationError("--evict-protect '\(text)' is not a duration like 90s, 15m, 1h or 1d")
            }
            options.evictProtect = seconds
        }
        options.notify = try notify.options(logger: logger)
        try pace.apply(to: &options)
        if binds.contains(where: { $0.hasPrefix("tcp://") }) {
            let keyFile =
                process.curveKey ?? environmentOption("curve-key")
                ?? home.root.appendingPathComponent("keys/scheduler.key").path
            do { options.curveKey = try CurveKeyPair.load(keyFile) } catch {
                logger.critical("scheduler cannot run: \(error)")
                throw ExitCode(1)
            }
            options.allowList = AllowList(
                path: allowKeys ?? environmentOption("allow-keys")
                    ?? home.root.appendingPathComponent("keys/allowed").path)
        }
        options.allowedHosts = (allowHosts ?? environmentOption("allow-hosts")).map(HostAllowList.init(parsing:))
        do {
            options.network = NetworkPolicy(
                allow: try IPNetwork.list(parsing: allowNetworks ?? environmentOption("allow-networks") ?? ""),
                deny: try IPNetwork.list(parsing: denyNetworks ?? environmentOption("deny-networks") ?? ""))
        } catch {
            logger.critical("scheduler cannot run: --allow-networks / --deny-networks: \(error)")
            throw ExitCode(2)
        }
        do {
            let metrics = try await process.startMetrics(logger: logger)
            let pidfile = process.pidfilePath
            // The pid file appears once the endpoints are bound, as before.
            let scheduler = SchedulerService.Runner(options: options, logger: logger) { writePidFile(pidfile) }
            // `--notify`: delivered beside the loop, which hands events over and takes outcomes back (NotifyFeed).
            let delivery = NotifyDelivery(scheduler: options, logger: logger)
            let services: [any Service] =
                (metrics.map { [$0] } ?? []) + (delivery.map { [$0] } ?? []) + scheduler.companions + [scheduler]
            try await Lifecycle.run(services, logger: logger)
        } catch {
            logger.critical("scheduler cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

await SchedulerCommand.topLevelMain()
