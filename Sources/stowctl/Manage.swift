import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol

/// One-title commands that answer with the title's status: `TOKEN STATE`, or the status with `--json`.
func titleCommand(
    _ connection: ConnectionOptions, _ title: TitleRef, _ request: (String) -> SchedulerCall<TitleStatus>
) throws {
    let client = try connection.client()
    let status = try client.request(request(title.resolve(with: client)))
    if connection.json { printJSON(status) } else { print("\(status.token) \(status.state.rawValue)") }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Suspend a title: fetches in flight stop, bytes on disk are kept; it stays paused across restarts.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    func run() throws { try titleCommand(connection, title) { .pause(token: $0) } }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Continue a suspended (or failed) title from what is on disk; verified files are not fetched again.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    func run() throws { try titleCommand(connection, title) { .resume(token: $0) } }
}

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a title's files, keys and record.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    func run() throws {
        let client = try connection.client()
        let token = try title.resolve(with: client)
        _ = try client.request(.delete(token: token))
        if connection.json { printJSON(["token": token, "deleted": "true"]) } else { print("\(token) deleted") }
    }
}

struct LimitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limits",
        abstract: "Show, or change live, the scheduler's concurrency limits.",
        discussion: """
            Changes apply at once to new work and are stored: they stay in force after any restart of the scheduler \
            (kill -9 included). A limit given to stowage-scheduler as a flag or STOWAGE_<OPTION> at start overrides \
            the stored value for that run (the scheduler logs it). --reset forgets the stored values.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Titles downloading at once.") var titles: Int?
    @Option(name: .customLong("per-title"), help: "Segment fetches in flight per title.") var perTitle: Int?
    @Option(name: .customLong("per-host"), help: "Requests in flight to one origin host, across all workers.")
    var perHost: Int?
    @Option(help: "License requests in flight at once.") var licenses: Int?
    @Option(
        help: ArgumentHelp("Global download rate cap: bytes/s or 500K, 2M (binary; 0 = none).", valueName: "rate"),
        transform: ByteRate.parsing)
    var bandwidth: ByteRate?
    @Option(
        name: .customLong("disk-cushion"),
        help: ArgumentHelp(
            "Bytes always kept free where titles are stored: bytes or 500M, 2G (binary).", valueName: "size"),
        transform: ByteSize.parsing)
    var diskCushion: ByteSize?
    @Flag(help: "Forget the stored limits: back to the defaults (other options given with it then apply).")
    var reset = false

    func validate() throws {
        for (name, v) in [("titles", titles), ("per-title", perTitle), ("per-host", perHost), ("licenses", licenses)] {
            if let v, v < 1 { throw ValidationError("--\(name) must be at least 1") }
        }
    }

    func run() throws {
        let change = LimitsInfo(
            titles: titles, perTitle: perTitle, perHost: perHost, licenses: licenses,
            bandwidth: bandwidth?.bytesPerSecond, diskCushion: diskCushion?.bytes, reset: reset ? true : nil)
        let any =
            reset || [titles, perTitle, perHost, licenses].contains { $0 != nil } || bandwidth != nil
            || diskCushion != nil
        let l = try connection.request(.limits(any ? change : nil))
        if connection.json {
            printJSON(l)
            return
        }
        print("titles downloading at once:   \(l.titles ?? 0)")
        print("fetches in flight per title:  \(l.perTitle ?? 0)")
        print("requests in flight per host:  \(l.perHost ?? 0)")
        print("license requests at once:     \(l.licenses ?? 0)")
        let cap = (l.bandwidth ?? 0) > 0 ? "\(TitleFormatter.bytes(l.bandwidth))/s" : "none"
        print("bandwidth cap:                \(cap)")
        print("disk cushion:                 \(TitleFormatter.bytes(l.diskCushion))")
    }
}
