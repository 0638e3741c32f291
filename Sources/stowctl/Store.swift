import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageStore

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
            Stop the home's scheduler first (the copy refuses while it answers). The destination must be a \
            database no scheduler has used (createdb a new one); its schema is made as a scheduler would. Every \
            table is copied with its ids in one PostgreSQL transaction and read back: per table the row count and \
            a digest of every row must equal the source's, or nothing is kept. The password comes from PGPASSWORD \
            or the pgpass file, never the URL. master.key, box.key and the title files are not in the store: \
            give every scheduler of the farm the same master.key and box.key (copied from this home) and the \
            titles on shared storage (docs/several-hosts.md, "A farm").

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
        if let client = try? SchedulerClient(endpoint: home.defaultEndpoint),
            (try? client.request(.stats, timeout: 2)) != nil
        {
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
            "next: this home's master.key and box.key on every scheduler host, the titles on shared storage, then "
                + "start each scheduler with --store \(destinationShown())")
    }

    /// The URL as given (it never carries a password: parsing refused that).
    func destinationShown() -> String { to }

    struct CopyReport: Encodable {
        var to: String
        var tables: [StoreCopy.Table]
        var seconds: Double
    }
}
