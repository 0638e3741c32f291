import ArgumentParser
import Foundation
import StowageProtocol
import StowageRuntime

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one title.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef

    func run() throws {
        let client = try connection.client()
        let status = try client.request(.status(token: title.resolve(with: client)))
        if connection.json { printJSON(status) } else { print(TitleFormatter.details(status)) }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show all titles, oldest first.")

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Only titles in this state.")
    var state: TitleState?
    @Flag(help: "The titles the scheduler's --quota would evict to make room, first victim first.")
    var evictable = false

    /// Titles asked for per request: each page answers quickly however many titles the scheduler holds.
    static let pageSize = 1_000

    func validate() throws {
        if evictable, state != nil { throw ValidationError("--evictable and --state cannot be combined") }
    }

    func run() throws {
        let client = try connection.client()
        if evictable {
            let order = try client.request(.evictable)
            if connection.json { return printJSON(order) }
            for (n, t) in order.enumerated() { print("\(n + 1). " + TitleFormatter.line(t)) }
            if order.isEmpty { print(try Self.nothingEvictable(client)) }
            return
        }
        var after: String?
        var shown = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        while true {
            let page = try client.request(
                .list(state: state, after: after, limit: Self.pageSize))
            for t in page {
                if connection.json {
                    // The elements of one JSON array, printed as they arrive.
                    let text = String(decoding: try encoder.encode(t), as: UTF8.self)
                    let indented = text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
                    print((shown == 0 ? "[\n" : ",\n") + indented.joined(separator: "\n"), terminator: "")
                } else {
                    print(TitleFormatter.line(t))
                }
                shown += 1
            }
            guard page.count == Self.pageSize, let last = page.last else { break }
            after = last.token
        }
        if connection.json {
            print(shown == 0 ? "[\n\n]" : "\n]")
        } else if shown == 0 {
            print("no titles")
        }
    }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel a title: work stops, files are removed, the record is kept.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef

    func run() throws { try titleCommand(connection, title) { .cancel(token: $0) } }
}

struct Workers: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Connected workers: kind, liveness, work in hand.")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let workers = try connection.request(.workers)
        if connection.json {
            printJSON(workers)
            return
        }
        // Which scheduler leads and since when: the farm's first question when workers look idle.
        if let stats = try? connection.request(.stats), let leader = stats.leader {
            print("leader: \(Stats.leaderLine(leader, leads: stats.leads))")
        }
        if workers.isEmpty {
            print("no workers connected")
            return
        }
        for w in workers {
            let seen = String(format: "%.1fs ago", w.lastSeenSecondsAgo)
            let kind = w.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            print(
                "\(kind) \(w.alive ? "alive" : "DEAD ")  tasks \(w.tasksInHand)/\(w.capacity)  seen \(seen)  "
                    + "pid \(w.pid)@\(w.host)  \(w.id)")
        }
    }
}

/// `list --state`: a state by its name, the names listed in `--help`.
extension TitleState: ExpressibleByArgument {}

extension List {
    /// Why `list --evictable` is empty, in words: the start-up grace (every title counts as being played until
    /// plays under way have reported), else what keeps each title.
    static func nothingEvictable(_ client: SchedulerClient) throws -> String {
        let stats = try client.request(.stats)
        guard let grace = stats.evictionGraceSeconds, grace > 0 else {
            return "nothing evictable (no --quota, or every title pinned, played recently or unfinished)"
        }
        return "nothing evictable yet: the scheduler started \(Int(stats.uptimeSeconds)) s ago and, for "
            + "\(Int(grace.rounded(.up))) s more, counts every title as being played (plays under way report first); "
            + "ask again then"
    }
}
