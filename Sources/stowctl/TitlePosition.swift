import ArgumentParser
import StowageRuntime

/// `bookmark add|remove`: `TOKEN POSITION`, or `--id ID POSITION` (``TitleRef/split(_:id:rest:)``).
struct TitlePosition: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The title's token and the position (seconds, M:SS or H:MM:SS); with --id, the position only.",
            valueName: "token> <position"))
    var arguments: [String]
    @Option(help: "The title's id (as given to submit --id) instead of its token.") var id: String?

    func validate() throws {
        let (_, rest) = try TitleRef.split(arguments, id: id, rest: ["POSITION"])
        try BookmarkCommand.validate(rest[0])
    }

    /// The title's token and the position in seconds.
    func resolve(with client: SchedulerClient) throws -> (token: String, seconds: Double) {
        let (token, rest) = try TitleRef.split(arguments, id: id, rest: ["POSITION"])
        guard let seconds = BookmarkCommand.seconds(rest[0]) else {
            throw ValidationError("'\(rest[0])' is not a position like 90, 1:30 or 1:02:03")
        }
        return (try TitleRef.resolve(token: token, id: id, with: client), seconds)
    }
}
