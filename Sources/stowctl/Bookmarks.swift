import ArgumentParser
import Foundation
import StowageProtocol

/// `stowctl bookmark add|remove|list`.
struct BookmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmark",
        abstract: """
            User bookmarks (add, remove, list); bookmarks that came with the source are listed but read-only.
            """,
        subcommands: [Add.self, Remove.self, ListBookmarks.self])

    /// `90`, `1:30`, `1:02:03` or `90s` as seconds.
    static func seconds(_ text: String) -> Double? {
        if let d = try? TimeSpan(parsing: text, bareSeconds: true) { return d.seconds }
        let parts = text.split(separator: ":").map { Double($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.reduce(0) { $0 * 60 + $1! }
    }

    /// A position argument must be one.
    static func validate(_ position: String) throws {
        if seconds(position) == nil {
            throw ValidationError("'\(position)' is not a position like 90, 1:30 or 1:02:03")
        }
    }

    static func show(_ marks: [Bookmark], json: Bool) {
        if json {
            printJSON(marks)
            return
        }
        if marks.isEmpty { print("no bookmarks") }
        for m in marks {
            let position = TitleFormatter.duration(m.position).padding(toLength: 9, withPad: " ", startingAt: 0)
            print("\(position) \(m.kind == .index ? "[source]" : "[user]  ") \(m.label)")
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a bookmark (one already at that position is replaced).")
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var place: TitleThen<BookmarkPosition>
        @Option(help: "A label.") var label: String = ""

        func validate() throws { try BookmarkCommand.validate(place.parts().next) }

        func run() throws {
            let client = try connection.client()
            let (token, position) = try place.resolve(with: client)
            let seconds = BookmarkCommand.seconds(position)!
            let add: SchedulerCall<[Bookmark]> = .bookmarkAdd(token: token, position: seconds, label: label)
            BookmarkCommand.show(try client.request(add), json: connection.json)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user bookmark.")
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var place: TitleThen<BookmarkPosition>

        func validate() throws { try BookmarkCommand.validate(place.parts().next) }

        func run() throws {
            let client = try connection.client()
            let (token, position) = try place.resolve(with: client)
            let seconds = BookmarkCommand.seconds(position)!
            let remove: SchedulerCall<[Bookmark]> = .bookmarkRemove(token: token, position: seconds)
            BookmarkCommand.show(try client.request(remove), json: connection.json)
        }
    }

    struct ListBookmarks: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a title's bookmarks.")
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var title: TitleRef

        func run() throws {
            let client = try connection.client()
            BookmarkCommand.show(
                try client.request(.bookmarks(token: title.resolve(with: client))), json: connection.json)
        }
    }
}
