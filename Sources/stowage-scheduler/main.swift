import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StowageLicensing
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageSchedulerService
import StowageStore

/// `stowage-scheduler`: the store, the limits, the leases and recovery, behind one ZeroMQ ROUTER.
struct SchedulerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-scheduler",
        abstract: "Owns Stowage's store, limits, leases and recovery; workers and stowctl connect to it over ZeroMQ.",
        discussion: """
            Binds ipc://$STOWAGE_HOME/run/scheduler.ipc, plus any --bind endpoint (e.g. tcp://0.0.0.0:7700 for \
            workers on other hosts). tcp endpoints are always CURVE-encrypted: the scheduler's key pair \
            (--curve-key) and an allow-list of worker and client public keys (--allow-keys); an unknown key is \
            refused and logged. Every option may also come from STOWAGE_<OPTION> (flags win); a bad value stops the \
            start naming the variable. Sizes and rates take binary K, M, G, T (1K = 1024); durations need a unit. \
            STOWAGE_MASTER_KEY (base64 of 32 bytes) replaces $STOWAGE_HOME/master.key.

            SIGTERM stops it gracefully; a restart (even after kill -9) resumes every unfinished title.
            """)

    @OptionGroup(title: "Process options")
    var process: ProcessOptions
    @Option(
        help: ArgumentHelp(
            "An extra endpoint to bind, e.g. tcp://0.0.0.0:7700 (repeatable). [env: STOWAGE_BIND, one]",
            valueName: "endpoint"))
    var bind: [String] = []
    @Option(
        help: ArgumentHelp(
            """
            The store: postgres://USER@HOST:PORT/DB (?sslmode=disable|require|verify-full may follow) for a \
            PostgreSQL database that is empty or Stowage's; PGHOST, PGPORT, PGUSER and PGDATABASE fill what the URL \
            leaves out, and the password comes only from PGPASSWORD or the pgpass file (PGPASSFILE, default \
            ~/.pgpass), never from the URL. Default: the embedded SQLite in $STOWAGE_HOME. [env: STOWAGE_STORE]
            """, valueName: "url"))
    var store: String?
    @Option(
        name: .customLong("allow-keys"),
        help: ArgumentHelp(
            """
            Public keys allowed over tcp: a file (one key per line) or a directory of .pub files, re-read at every \
            connection. In a directory, the folder of a key is its role: worker/, gateway/ or operator/ (a .pub \
            directly in it is an operator's); a request outside the role is refused as forbidden. Default: \
            $STOWAGE_HOME/keys/allowed. [env: STOWAGE_ALLOW_KEYS]
            """, valueName: "path"))
    var allowKeys: String?
    @Option(
        name: .customLong("allow-hosts"),
        help: ArgumentHelp(
            """
            Fetch only from these origin hosts: comma-separated names or addresses, *.example.com for a whole \
            domain (default: any host). Checked on submit and on every request and redirect. \
            [env: STOWAGE_ALLOW_HOSTS]
            """, valueName: "hosts"))
    var allowHosts: String?
    @Option(
        name: .customLong("allow-networks"),
        help: ArgumentHelp(
            """
            Address ranges every title may fetch from, whatever its source (comma-separated CIDR, e.g. \
            10.20.0.0/16 for a LAN CDN that public playlists name). Otherwise a title reaches no address deeper in \
            than its source's (public < private < loopback), and never link-local, multicast or unspecified ones. \
            [env: STOWAGE_ALLOW_NETWORKS]
            """, valueName: "cidr,..."))
    var allowNetworks: String?
    @Option(
        name: .customLong("deny-networks"),
        help: ArgumentHelp(
            """
            Address ranges no title may fetch from (comma-separated CIDR, e.g. the box's management subnet); \
            wins over --allow-networks. Checked on the address each request connects to, after every redirect. \
            [env: STOWAGE_DENY_NETWORKS]
            """, valueName: "cidr,..."))
    var denyNetworks: String?
    @Option(
        help: ArgumentHelp(
            """
            Titles downloading at once (default 2). Limits given at start override, for this run, those stored \
            with `stowctl limits`. [env: STOWAGE_TITLES]
            """, valueName: "n"))
    var titles: Int?
    @Option(
        name: .customLong("per-title"),
        help: ArgumentHelp("Segment fetches in flight per title (default 6). [env: STOWAGE_PER_TITLE]", valueName: "n"))
    var perTitle: Int?
    @Option(
        name: .customLong("per-host"),
        help: ArgumentHelp(
            "Requests in flight to one origin host across all workers (default 8). [env: STOWAGE_PER_HOST]",
            valueName: "n"))
    var perHost: Int?
    @Option(
        help: ArgumentHelp("License requests in flight at once (default 4). [env: STOWAGE_LICENSES]", valueName: "n"))
    var licenses: Int?
    @Option(
        help: ArgumentHelp(
            """
            Global download rate cap, split across download workers: bytes/s or 500K, 2M (binary; default: none). \
            [env: STOWAGE_BANDWIDTH]
            """, valueName: "rate"), transform: ByteRate.parsing)
    var bandwidth: ByteRate?
    @Option(
        name: .customLong("disk-cushion"),
        help: ArgumentHelp(
            "Bytes always kept free where titles are stored: bytes or 500M, 2G (default 1G). "
                + "[env: STOWAGE_DISK_CUSHION]",
            valueName: "size"), transform: ByteSize.parsing)
    var diskCushion: ByteSize?
    @Option(
        name: .customLong("give-up-after"),
        help: ArgumentHelp(
            """
            Fail a title that has waited this long for an unreachable origin or license server (90s, 15m, 24h, \
            30d). Default: never; it resumes by itself when the host answers. [env: STOWAGE_GIVE_UP_AFTER]
            """, valueName: "duration"), transform: TimeSpan.parsing)
    var giveUpAfter: TimeSpan?
    @Option(
        name: .customLong("auto-renew-before"),
        help: ArgumentHelp(
            """
            Renew time-limited licenses automatically this long before they end: seconds, or 90s, 15m, 24h \
            (default: never). [env: STOWAGE_AUTO_RENEW_BEFORE]
            """, valueName: "seconds"), transform: SecondsOrSpan.parsing)
    var autoRenewBefore: SecondsOrSpan?
    @Option(
        name: .customLong("scrub-interval"),
        help: ArgumentHelp(
            """
            Re-verify completed titles at rest this often: seconds, or 15m, 24h, 7d (default: never). \
            [env: STOWAGE_SCRUB_INTERVAL]
            """, valueName: "seconds"), transform: SecondsOrSpan.parsing)
    var scrubInterval: SecondsOrSpan?
    @Option(
        name: .customLong("scrub-budget"),
        help: ArgumentHelp(
            "Bytes per second the background scrub may read: bytes/s or 50M (default: no limit). "
                + "[env: STOWAGE_SCRUB_BUDGET]", valueName: "rate"), transform: ByteRate.parsing)
    var scrubBudget: ByteRate?
    @Option(
        help: ArgumentHelp(
            """
            Bytes all titles together may hold: plain bytes or 500M, 2G, 1.5T (binary; default: no quota). A title \
            that does not fit evicts completed titles (removed from the catalogue first, then the least recently \
            played; never a pinned one or one being played) or waits as suspended (quota). [env: STOWAGE_QUOTA]
            """, valueName: "size"), transform: ByteSize.parsing)
    var quota: ByteSize?
    @Option(
        name: .customLong("evict-protect"),
        help: ArgumentHelp(
            "A title played within this long is never evicted for the quota (90s, 15m, 24h; default 1h). "
                + "[env: STOWAGE_EVICT_PROTECT]", valueName: "duration"), transform: TimeSpan.parsing)
    var evictProtect: TimeSpan?

    @Option(
        name: .customLong("leader-lease"),
        help: ArgumentHelp(
            """
            Schedulers sharing a store elect one leader on a lease this long (90s, 15m; default 10s): the leader \
            renews it every third of it; a standby takes over once it runs out; a leader that could not renew \
            within it stops handing out work. Alone on its store, a scheduler leads at once. \
            [env: STOWAGE_LEADER_LEASE]
            """, valueName: "duration"), transform: TimeSpan.parsing)
    var leaderLease: TimeSpan?

    @OptionGroup(title: "Catalogue")
    var catalog: CatalogFlags
    @OptionGroup(title: "Fill windows")
    var fill: FillFlags
    @OptionGroup(title: "Notifications")
    var notify: NotifyFlags
    @OptionGroup(title: "Slow answers")
    var pace: PaceFlags

    /// Every option from its flag, else its `STOWAGE_` variable (the groups resolve their own); a bad value stops
    /// the start naming the flag or the variable (exit 2).
    mutating func validate() throws {
        bind = try EnvironmentRule.resolve(list: bind, "bind", check: OptionChecks.endpoint)
        // Secret: the text is never echoed (a URL with a password is refused without showing it).
        let given = store == nil ? "STOWAGE_STORE" : "--store"
        store = try EnvironmentRule.resolve(store, "store", secret: true)
        if let store {
            do { _ = try StoreLocation.parse(store) } catch { throw ValidationError("\(given): \(error)") }
        }
        allowKeys = try EnvironmentRule.resolve(allowKeys, "allow-keys", check: OptionChecks.existing)
        allowHosts = try EnvironmentRule.resolve(allowHosts, "allow-hosts", check: HostAllowList.problem(parsing:))
        let networks = { (text: String) -> String? in
            do { _ = try IPNetwork.list(parsing: text) } catch { return "\(error)" }
            return nil
        }
        allowNetworks = try EnvironmentRule.resolve(allowNetworks, "allow-networks", check: networks)
        denyNetworks = try EnvironmentRule.resolve(denyNetworks, "deny-networks", check: networks)
        let count = { (n: Int) in (1...10_000).contains(n) ? nil : "must be between 1 and 10000" }
        titles = try EnvironmentRule.resolve(titles, "titles", check: count)
        perTitle = try EnvironmentRule.resolve(perTitle, "per-title", check: count)
        perHost = try EnvironmentRule.resolve(perHost, "per-host", check: count)
        licenses = try EnvironmentRule.resolve(licenses, "licenses", check: count)
        bandwidth = try EnvironmentRule.resolve(bandwidth, "bandwidth")
        diskCushion = try EnvironmentRule.resolve(diskCushion, "disk-cushion")
        giveUpAfter = try EnvironmentRule.resolve(giveUpAfter, "give-up-after") {
            $0.seconds > 0 ? nil : "must be longer than 0s"
        }
        autoRenewBefore = try EnvironmentRule.resolve(autoRenewBefore, "auto-renew-before")
        scrubInterval = try EnvironmentRule.resolve(scrubInterval, "scrub-interval") {
            $0.seconds > 0 ? nil : "must be longer than 0s"
        }
        scrubBudget = try EnvironmentRule.resolve(scrubBudget, "scrub-budget")
        quota = try EnvironmentRule.resolve(quota, "quota") { $0.bytes > 0 ? nil : "must be more than 0 bytes" }
        evictProtect = try EnvironmentRule.resolve(evictProtect, "evict-protect")
        leaderLease = try EnvironmentRule.resolve(leaderLease, "leader-lease") {
            (1...3_600).contains($0.seconds) ? nil : "must be between 1s and 1h"
        }
        // STOWAGE_MASTER_KEY is a secret, so no flag; a bad one stops the start here too, by the vault's own rule
        // (its environment branch returns before any file is touched).
        if let (name, text) = environmentValue("master-key") {
            do { _ = try KeyVault.loadMasterKey(home: URL(fileURLWithPath: "/"), environment: [name: text]) } catch {
                throw ValidationError("\(error)")
            }
        }
    }

    func run() async throws {
        process.bootstrapLogging()
        let logger = Logger(label: "stowage.scheduler")
        let home = process.stowageHome
        // Given at start: overrides the limits stored with `stowctl limits` for this run (and says so in the log).
        let overrides = LimitSettings(
            titles: titles, perTitle: perTitle, perHost: perHost, licenses: licenses,
            bandwidth: bandwidth?.bytesPerSecond, diskCushion: diskCushion?.bytes)
        if let refusal = overrides.refusal() { throw ValidationError(refusal) }
        var options = SchedulerService.Options(home: home, binds: bind, limitOverrides: overrides)
        // Checked in validate().
        options.store = try store.map { try StoreLocation.parse($0) }
        if case .postgres(let location) = options.store { logger.info("store on PostgreSQL: \(location.shown)") }
        options.giveUpAfter = giveUpAfter?.seconds
        options.autoRenewBefore = autoRenewBefore?.seconds
        options.scrubInterval = scrubInterval?.seconds
        options.scrubBytesPerSecond = scrubBudget?.bytesPerSecond
        options.catalog = try catalog.options(logger: logger)
        try fill.apply(to: &options)
        options.quota = quota?.bytes
        if let evictProtect { options.evictProtect = evictProtect.seconds }
        if let leaderLease { options.leaderLease = leaderLease.seconds }
        options.notify = try notify.options(logger: logger)
        pace.apply(to: &options)
        if bind.contains(where: { $0.hasPrefix("tcp://") }) {
            let keyFile = process.curveKey ?? home.root.appendingPathComponent("keys/scheduler.key").path
            do { options.curveKey = try CurveKeyPair.load(keyFile) } catch {
                logger.critical("scheduler cannot run: \(error)")
                throw ExitCode(1)
            }
            options.allowList = AllowList(path: allowKeys ?? home.root.appendingPathComponent("keys/allowed").path)
        }
        options.allowedHosts = allowHosts.map(HostAllowList.init(parsing:))
        // Both lists were checked in validate().
        options.network = NetworkPolicy(
            allow: (try? IPNetwork.list(parsing: allowNetworks ?? "")) ?? [],
            deny: (try? IPNetwork.list(parsing: denyNetworks ?? "")) ?? [])
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
