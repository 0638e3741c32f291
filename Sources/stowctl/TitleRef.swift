import ArgumentParser
import StowageProtocol
import StowageRuntime

/// The title a command acts on: its token (the positional TOKEN) or its id (`--id ID`, as given to `submit --id`),
/// exactly one. Every command that takes a TOKEN takes it through this group, so `--id` means the same everywhere.
/// An id is turned into the token once, by the scheduler's read-only `lookup` (the operation the gateway's
/// `/resolve?id=` uses); an id no title has is the scheduler's `not-found`, naming the id (exit 1).
struct TitleRef: ParsableArguments {
    @Argument(help: "The title's token (from submit or list); or give --id.")
    var token: String?
    @Option(help: "The title's id (as given to submit --id) instead of its token.")
    var id: String?

    func validate() throws { try Self.check(token: token, id: id) }

    /// The token this names: as given, or the token of the title with the id.
    func resolve(_ connection: ConnectionOptions) throws -> String {
        try Self.resolve(token: token, id: id, with: connection.client())
    }

    /// The token this names, asked on an open connection.
    func resolve(with client: SchedulerClient) throws -> String {
        try Self.resolve(token: token, id: id, with: client)
    }

    /// One of TOKEN or --id, never both, never neither (a usage error, exit 2).
    static func check(token: String?, id: String?) throws {
        if token != nil, id != nil { throw ValidationError("give the title's TOKEN or --id ID, not both") }
        if token == nil, id == nil { throw ValidationError("give the title's TOKEN or --id ID") }
    }

    /// The rule for commands whose title is not a ``TitleRef`` group (`renew`, `watch`, ``TitleThen``): the
    /// token as given, or the token of the title with `id` (`lookup`: an unknown id is `not-found`).
    static func resolve(token: String?, id: String?, with client: SchedulerClient) throws -> String {
        if let token { return token }
        guard let id else { throw ValidationError("give the title's TOKEN or --id ID") }
        return try client.request(.lookup(id: id, url: nil)).token
    }
}
