import ArgumentParser
import StowageProtocol

/// `pin TOKEN`: the title is kept whatever the `--quota` needs.
struct Pin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep a title: the scheduler's --quota never evicts it to make room (`unpin` undoes it).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token.") var token: String
    func run() throws { try pinCommand(connection, .pin(token: token, pinned: true)) }
}

/// `unpin TOKEN`: the title may be evicted again, least recently played first.
struct Unpin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Let the scheduler's --quota evict a title again; a title waiting for room may take its place.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token.") var token: String
    func run() throws { try pinCommand(connection, .pin(token: token, pinned: false)) }
}

/// `TOKEN pinned|unpinned`, or the status with `--json`.
private func pinCommand(_ connection: ConnectionOptions, _ request: SchedulerCall<TitleStatus>) throws {
    let status = try connection.request(request)
    if connection.json {
        printJSON(status)
    } else {
        print("\(status.token) \(status.pinned == true ? "pinned" : "unpinned")")
    }
}
