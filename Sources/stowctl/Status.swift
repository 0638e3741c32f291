import ArgumentParser
import Foundation
import StowageProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one title.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token (from submit or list).")
    var token: String

    func run() throws {
        guard case .title(let status) = try connection.client().request(.status(token: token)).checked() else {
            throw Failure(description: "unexpected reply")
        }
        if connection.json { printJSON(status) } else { print(TitleFormatter.details(status)) }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show all titles, oldest first.")

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Only titles in this state (\(TitleState.allCases.map(\.rawValue).joined(separator: ", "))).")
    var state: String?

    func validate() throws {
        if let state, TitleState(rawValue: state) == nil { throw ValidationError("unknown state '\(state)'") }
    }

    func run() throws {
        guard case .titles(let titles) = try connection.client().request(.list(state: state.flatMap(TitleState.init))).checked() else {
            throw Failure(description: "unexpected reply")
        }
        if connection.json { printJSON(titles); return }
        if titles.isEmpty { print("no titles"); return }
        for t in titles { print(TitleFormatter.line(t)) }
    }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cancel a title: work stops, files are removed, the record is kept.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token.")
    var token: String

    func run() throws {
        guard case .title(let status) = try connection.client().request(.cancel(token: token)).checked() else {
            throw Failure(description: "unexpected reply")
        }
        if connection.json { printJSON(status) } else { print("\(status.token) \(status.state.rawValue)") }
    }
}

struct Workers: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Connected workers: kind, liveness, work in hand.")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        guard case .workers(let workers) = try connection.client().request(.workers).checked() else {
            throw Failure(description: "unexpected reply")
        }
        if connection.json { printJSON(workers); return }
        if workers.isEmpty { print("no workers connected"); return }
        for w in workers {
            let seen = String(format: "%.1fs ago", w.lastSeenSecondsAgo)
            print("\(w.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(w.alive ? "alive" : "DEAD ")  tasks \(w.tasksInHand)/\(w.capacity)  seen \(seen)  pid \(w.pid)@\(w.host)  \(w.id)")
        }
    }
}
