import ArgumentParser
import Foundation
import StowageProtocol

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Live progress bars until the titles end.",
        discussion: "Without tokens or ids, watches every title not yet ended. --json prints one event per line.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Tokens to watch (default: all unfinished titles).")
    var tokens: [String] = []
    @Option(name: .customLong("id"), help: "The id of a title to watch (as given to submit --id; repeatable).")
    var ids: [String] = []

    func run() throws {
        let client = try connection.client()
        var watched = tokens
        for id in ids { watched.append(try TitleRef.resolve(token: nil, id: id, with: client)) }
        if watched.isEmpty {
            let titles = try client.request(.list(state: nil))
            watched = titles.filter { !$0.state.isFinal }.map(\.token)
            if watched.isEmpty {
                if !connection.json { print("nothing to watch: every title has ended") }
                return
            }
        }
        let watcher = ProgressWatcher(client: client, tokens: watched, json: connection.json, output: .standardOutput)
        let final = try watcher.run()
        if final.values.contains(where: { $0.state != .completed }) { throw ExitCode(1) }
    }
}
