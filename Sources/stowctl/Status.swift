import ArgumentParser
import Foundation
import StowageProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one title.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token (from submit or list).")
    var token: String

    func run() throws {
        let status = try connection.request(.status(token: token), expecting: Reply.title)
        if connection.json { printJSON(status) } else { print(TitleFormatter.details(status)) }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show all titles, oldest first.")

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Only titles in this state.")
    var state: TitleState?

    func run() throws {
        let titles = try connection.request(.list(state: state), expecting: Reply.titles)
        if connection.json {
            printJSON(titles)
            return
        }
        if titles.isEmpty {
            print("no titles")
            return
        }
        for t in titles { print(TitleFormatter.line(t)) }
    }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel a title: work stops, files are removed, the record is kept.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token.")
    var token: String

    func run() throws { try titleCommand(connection, .cancel(token: token)) }
}

struct Workers: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Connected workers: kind, liveness, work in hand.")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let workers = try connection.request(.workers, expecting: Reply.workers)
        if connection.json {
            printJSON(workers)
            return
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
