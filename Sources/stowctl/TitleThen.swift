import ArgumentParser
import StowageRuntime

/// The positional that follows the title in ``TitleThen``: how help and usage errors name it.
protocol FollowingArgument {
    /// Its name in usage errors (`DIR`).
    static var name: String { get }
    /// What it is, for `--help` (`the folder to write (new or empty)`).
    static var help: String { get }
}

/// A title and one more positional: `TOKEN NEXT`, or `--id ID NEXT` (`export TOKEN DIR`, `bookmark add TOKEN
/// POSITION`). ArgumentParser fills positionals left to right, so with `--id` the first value is NEXT, not a token:
/// both come as one list, taken apart here. The id is resolved as ``TitleRef`` resolves it.
struct TitleThen<Next: FollowingArgument>: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The title's token, then \(Next.help); with --id, \(Next.name) only.",
            valueName: "token> <\(Next.name.lowercased())"))
    var arguments: [String]
    @Option(help: "The title's id (as given to submit --id) instead of its token.")
    var id: String?

    func validate() throws { _ = try parts() }

    /// The token as given (nil with `--id`) and NEXT.
    func parts() throws -> (token: String?, next: String) {
        let next = Next.name
        if id != nil {
            guard arguments.count == 1 else { throw ValidationError("with --id, give \(next) only") }
            return (nil, arguments[0])
        }
        guard arguments.count == 2 else { throw ValidationError("give TOKEN \(next) (or --id ID \(next))") }
        return (arguments[0], arguments[1])
    }

    /// The title's token (an id looked up once) and NEXT.
    func resolve(with client: SchedulerClient) throws -> (token: String, next: String) {
        let (token, next) = try parts()
        return (try TitleRef.resolve(token: token, id: id, with: client), next)
    }
}

/// `export`'s folder.
enum ExportFolder: FollowingArgument {
    static let name = "DIR"
    static let help = "the folder to write (new or empty)"
}

/// `bookmark add|remove`'s position.
enum BookmarkPosition: FollowingArgument {
    static let name = "POSITION"
    static let help = "the position (seconds, M:SS or H:MM:SS)"
}
