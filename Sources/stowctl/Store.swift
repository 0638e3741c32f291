import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageStore

#if canImport(Glibc)
    import Glibc
#endif

/// `stowctl store …`: the scheduler's store itself, on the box (not through the scheduler).
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Move a box's store into a farm's PostgreSQL database.",
        subcommands: [StoreCopyCommand.self])
}

/// `stowctl store copy --to postgres://…`: a home's embedded store, row for row, into an empty PostgreSQL database,
/// so schedulers started with `--store` that URL go on with every title, plan, wrapped key, license, play, device,
/// the catalogue and the outbox. Runs where the home is, with its scheduler stopped (a copy of a store still being
/// written would miss what comes after it).
struct StoreCopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy this home's store into an empty PostgreSQL database, checked row for row.",
        discussion: """
            Copies every table of the home's store (titles, plans, wrapped keys, licenses, plays, devices, \
            bookmarks, the catalogue's settings, the notification outbox, bundle imports, play receipts) with \
            its ids into a PostgreSQL database, in one transaction, then reads each table back: its row count \
            and a digest of every row must equal the source's, or nothing is kept.

            Refused (exit 1, code refused) while the home's scheduler runs, and into a database that holds \
            rows or tables that are not Stowage's: createdb a new one. The password comes from PGPASSWORD or \
            the pgpass file, never the URL (a URL with one is a usage error, exit 2).

            Not in the store, so not copied: master.key and box.key (give every scheduler of the farm this \
            home's), and the title files (put titles/ on storage every scheduler host mounts). Then start \
            each scheduler with --store and the same URL (docs/commands.md, docs/several-hosts.md).

            Example:
              stowctl store copy --to postgres://stowage@db.example:5432/stowage
            """)

    @Option(
        help: ArgumentHelp(
            "Stowage home whose store is copied. Default: ~/.stowage. [env: STOWAGE_HOME]",
            valueName: "dir"))
    var home: String?
    @Option(help: ArgumentHelp("The PostgreSQL store to fill: postgres://USER@HOST:PORT/DB.", valueName: "url"))
    var to: String
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    func validate() throws {
        do { _ = try StoreLocation.parse(to) } catch let error as StoreError {
            throw ValidationError("--to: \(error.message)")
        }
    }

    func run() throws {
        let home = StowageHome(option: try EnvironmentRule.resolve(home, "home", check: OptionChecks.home))
        guard FileManager.default.fileExists(atPath: home.storePath) else {
            throw Failure(
                "there is no store at \(home.storePath): is \(home.root.path) a Stowage home?", code: .notFound)
        }
        guard !Self.listens(home.defaultEndpoint) else {
            throw Failure(
                "the scheduler of \(home.root.path) is running: stop it first (a copy would miss what it writes after)",
                code: .refused)
        }
        let destination: Store
        let source: Store
        do {
            source = try Store(path: home.storePath)
            destination = try Store(location: StoreLocation.parse(to))
        } catch let error as StoreError {
            throw Failure(error.message, code: error.code == .unreachable ? .network : .refused)
        }
        let started = ContinuousClock.now
        let tables: [StoreCopy.Table]
        do {
            tables = try StoreCopy.copy(from: source, to: destination) { table in
                guard !json else { return }
                print("\(table.table): \(table.rows) rows copied and checked")
            }
        } catch let error as StoreError {
            throw Failure(error.message, code: error.code == .notEmpty ? .refused : .internal)
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        if json { return printJSON(CopyReport(to: destinationShown(), tables: tables, seconds: seconds)) }
        print(
            "copied \(tables.reduce(0) { $0 + $1.rows }) rows in \(tables.count) tables to \(destinationShown()) "
                + String(format: "in %.1f s", seconds))
        print(
            "next: this home's master.key and box.key on every scheduler host, the titles on shared storage, "
                + "then start each scheduler with --store \(destinationShown())")
    }

    /// Whether a process accepts connections on the home's scheduler socket (`ipc://…`, a Unix socket). Asked of
    /// the kernel, not of the scheduler: a busy or frozen scheduler is still seen, and the socket file a stopped one
    /// may leave behind refuses the connection.
    static func listens(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("ipc://") else { return false }
        let path = Array(endpoint.dropFirst("ipc://".count).utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// The URL as given (it never carries a password: parsing refused that).
    func destinationShown() -> String { to }

    struct CopyReport: Encodable {
        var to: String
        var tables: [StoreCopy.Table]
        var seconds: Double
    }
}
