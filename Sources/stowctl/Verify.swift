import ArgumentParser
import Foundation
import StowageProtocol

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-check every file of a completed title at rest (length, container, SHA-256).",
        discussion: """
            Reports missing and corrupted files. --repair fetches again only those (license permitting) and returns \
            the title to completed.
            """)
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    @Flag(help: "Fetch bad or missing files again.") var repair = false

    func run() async throws {
        let client = try connection.client()
        let token = try title.resolve(with: client)
        _ = try client.request(.verify(token: token, repair: repair))
        var last: TitleStatus?
        while true {
            let s = try client.request(.status(token: token))
            last = s
            if s.state != .verifying && s.state != .downloading { break }
            if !connection.json {
                FileHandle.standardError.write(Data(("\r" + TitleFormatter.bar(s, rate: 0)).utf8))
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        guard let s = last else { throw Failure("no status") }
        if !connection.json { FileHandle.standardError.write(Data("\n".utf8)) }
        if connection.json {
            printJSON(s)
        } else if s.state == .completed && s.error == nil {
            print("\(token): all \(s.segmentsTotal) files verified")
        } else {
            print("\(token): [\(s.error?.code.rawValue ?? s.state.rawValue)] \(s.error?.message ?? "")")
        }
        if s.state != .completed || s.error != nil { throw ExitCode(1) }
    }
}

struct GarbageCollect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: """
            Remove orphans: title folders the store does not know, and partial files of titles not downloading.
            """)
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let paths = try connection.request(.gc)
        if connection.json {
            printJSON(paths)
            return
        }
        for p in paths { print("removed \(p)") }
        print("\(paths.count) orphan(s) removed")
    }
}
