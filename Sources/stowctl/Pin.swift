import ArgumentParser
import StowageProtocol

/// `pin TOKEN` (or `--id ID`): the title is kept whatever the `--quota` needs.
struct Pin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep a title: the scheduler's --quota never evicts it to make room (`unpin` undoes it).")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    func run() throws { try pinCommand(connection, title, pinned: true) }
}

/// `unpin TOKEN` (or `--id ID`): the title may be evicted again, least recently played first.
struct Unpin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Let the scheduler's --quota evict a title again; a title waiting for room may take its place.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    func run() throws { try pinCommand(connection, title, pinned: false) }
}

/// `TOKEN pinned|unpinned`, or the status with `--json`.
private func pinCommand(_ connection: ConnectionOptions, _ title: TitleRef, pinned: Bool) throws {
    let client = try connection.client()
    let status = try client.request(.pin(token: title.resolve(with: client), pinned: pinned))
    if connection.json {
        printJSON(status)
    } else {
        print("\(status.token) \(status.pinned == true ? "pinned" : "unpinned")")
    }
}
