import ArgumentParser
import Foundation
import StowageProtocol

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Live progress bars until the titles end.",
        discussion: "Without tokens, watches every title not yet ended. --json prints one event per line.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Tokens to watch (default: all unfinished titles).")
    var tokens: [String] = []

    func run() throws {
        let client = try connection.client()
        var watched = tokens
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
