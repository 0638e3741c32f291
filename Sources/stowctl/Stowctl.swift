import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime

/// `stowctl`: the producer / operator CLI. Talks to the scheduler over ZeroMQ only.
@main
struct Stowctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowctl",
        abstract: "Queue, watch and manage Stowage's offline HLS downloads.",
        discussion: """
            Every command talks to stowage-scheduler: by default over ipc in $STOWAGE_HOME/run (start one with \
            Deploy/start.sh), or over --scheduler tcp://HOST:PORT. Add --json for machine output (a failure too: \
            {"error": {"code", "message"}} on stdout). Exit status: 0 ok, 1 failure, 2 usage error.

            Examples:
              stowctl submit https://cdn.example.com/movie/master.m3u8 --bitrate 3000000 --wait
              stowctl watch
              stowctl status 3f2a9c1d0b7e4a55 --json
            """,
        groupedSubcommands: [
            CommandGroup(
                name: "Downloads",
                subcommands: [
                    Submit.self, Status.self, List.self, Watch.self, Pause.self, Resume.self, Stop.self, Cancel.self,
                    Delete.self, Verify.self, Pin.self, Unpin.self,
                ]),
            CommandGroup(name: "Before downloading", subcommands: [Variants.self, Estimate.self]),
            CommandGroup(name: "Licenses", subcommands: [Preload.self, Renew.self, LicenseCommand.self]),
            CommandGroup(
                name: "Playback & library",
                subcommands: [Playable.self, Play.self, Remux.self, BookmarkCommand.self, DevicesCommand.self]),
            CommandGroup(
                name: "Operations",
                subcommands: [
                    Workers.self, LimitsCommand.self, Stats.self, GarbageCollect.self, KeysCommand.self,
                    CatalogCommand.self, NotifyCommand.self, StoreCommand.self,
                ]),
            CommandGroup(name: "Box to box", subcommands: [BoxCommand.self, Export.self, Import.self]),
        ])

    /// Every failure as `topLevelMain` tells it: one `Error: [code] message` line, or with `--json` the error as
    /// JSON on stdout; a usage error exits 2 (the contract), any other failure 1.
    static func main() async { await topLevelMain(jsonFlag: "--json") }
}

/// Options every command shares: how to reach the scheduler (as the gateway does), and `--json`.
struct ConnectionOptions: ParsableArguments {
    @OptionGroup var scheduler: SchedulerConnectionOptions
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    /// A client that, with several endpoints, waits out a takeover under way (``SchedulerClient/takeoverWait``).
    func client() throws -> sending SchedulerClient {
        let client = try scheduler.client()
        client.takeoverWait = 15
        return client
    }

    /// One request on a new connection; see ``SchedulerClient/request(_:timeout:)``.
    func request<Request: SchedulerRequest>(_ request: Request) throws -> Request.Reply {
        try client().request(request)
    }
}

/// A failure of a command, with its code and a message a person can act on: exit 1.
struct Failure: Error, CustomStringConvertible, CodedError {
    let code: ErrorCode
    let message: String
    var description: String { message }

    init(_ message: String, code: ErrorCode = .internal) {
        self.code = code
        self.message = message
    }
}

/// Pretty JSON with stable key order for scripts.
func printJSON<T: Encodable>(_ value: T) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    if let data = try? encoder.encode(value) { print(String(decoding: data, as: UTF8.self)) }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
