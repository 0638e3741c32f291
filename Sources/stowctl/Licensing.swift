import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime

struct Preload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: """
            Acquire a title's license ahead of time; prints the token. A later submit of the same URL downloads it.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "URL of the HLS master (or media) playlist.") var url: String
    @OptionGroup var license: LicenseOptions
    @OptionGroup var select: SelectionOptions

    func run() async throws {
        let request = SubmitRequest(
            url: url, name: nil, priority: 0, headers: select.parsedHeaders,
            selection: select.selection, terms: license.terms, licenseURL: license.licenseURL,
            preloadOnly: true)
        let client = try connection.client()
        let token = try client.request(.submit(request))
        let deadline = monotonic() + 120
        while monotonic() < deadline {
            let s = try client.request(.status(token: token))
            if s.state == .licensed || s.state == .downloading || s.state == .completed || s.state.isFinal {
                if s.state == .failed {
                    let error = "[\(s.error?.code.rawValue ?? "")] \(s.error?.message ?? "")"
                    throw Failure("preload of \(token) failed: \(error)", code: s.error?.code ?? .license)
                }
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        if connection.json { printJSON(["token": token]) } else { print(token) }
    }
}

struct LicenseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "license", abstract: "License terms, expiry and whether the title can be played now.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef

    func run() throws {
        let client = try connection.client()
        let token = try title.resolve(with: client)
        let r = try client.request(.license(token: token))
        if connection.json {
            printJSON(r)
            return
        }
        guard let l = r.license else {
            print("\(token): no license yet")
            return
        }
        print("kind:             \(l.kind.rawValue)")
        print("requested:        \(l.requestedAt ?? "-")")
        print("expires:          \(l.expiresAt ?? "never")\(l.expired ? " (EXPIRED)" : "")")
        if let d = l.playDurationSeconds {
            print("play duration:    \(TitleFormatter.whole(d)) s after the first play")
        }
        if let p = l.playsRemaining { print("plays remaining:  \(p)") }
        if let t = l.playTimeRemainingSeconds { print("play time left:   \(TitleFormatter.whole(t)) s") }
        if r.forceExpired { print("forced expiry:    yes") }
        if r.renewalSuggested { print("renewal:          suggested by the server") }
        if r.renewing { print("renewal:          in progress") }
        if let e = r.lastError { print("last renewal:     FAILED: \(e)") }
        print("playable now:     \(r.playable ? "yes" : "no: \(r.reason ?? "")")")
    }
}

struct Renew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Renew licenses without re-downloading: a title (TOKEN or --id), --all, --expired or --expiring-within D.",
        discussion: "Bulk renewal shows each item (i of n, ok or error) and a summary; exit 1 if any failed.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token (or use --id, --all, --expired, --expiring-within).") var token: String?
    @Option(help: "The title's id (as given to submit --id) instead of its token.") var id: String?
    @Flag(help: "Renew every licensed title.") var all = false
    @Flag(help: "Renew every title whose license has expired (or has no plays or play time left).") var expired = false
    @Option(
        name: .customLong("expiring-within"),
        help: ArgumentHelp(
            "Renew every title whose license has expired or ends within this long (90s, 15m, 24h, 30d).",
            valueName: "duration"), transform: TimeSpan.parsing)
    var expiringWithin: TimeSpan?
    @OptionGroup var license: LicenseOptions

    func validate() throws {
        let picked = [token != nil, id != nil, all, expired, expiringWithin != nil].filter { $0 }.count
        if picked != 1 {
            throw ValidationError("give exactly one of TOKEN, --id, --all, --expired, --expiring-within")
        }
    }

    /// Whether a title's license is picked by --expired / --expiring-within.
    private func picked(_ status: TitleStatus, now: Date) -> Bool {
        guard let l = status.license, status.state != .canceled, status.state != .failed else { return false }
        if all || l.expired { return true }
        guard let within = expiringWithin?.seconds, let text = l.expiresAt,
            let end = try? Date(text, strategy: .iso8601)
        else { return false }
        return end.timeIntervalSince(now) <= within
    }

    func run() async throws {
        let client = try connection.client()
        var tokens: [String] = []
        if token != nil || id != nil {
            tokens = [try TitleRef.resolve(token: token, id: id, with: client)]
        } else {
            let titles = try client.request(.list(state: nil))
            let now = Date()
            tokens = titles.filter { picked($0, now: now) }.map(\.token)
        }
        var failures = 0
        var results: [[String: String]] = []
        for (i, t) in tokens.enumerated() {
            let outcome = await renewOne(client, t)
            if outcome.error != nil { failures += 1 }
            results.append([
                "token": t, "result": outcome.error == nil ? "ok" : "error",
                "detail": outcome.error ?? outcome.detail,
            ])
            if !connection.json {
                let line =
                    "[\(i + 1)/\(tokens.count)] \(t) "
                    + (outcome.error.map { "error: \($0)" } ?? "ok: \(outcome.detail)")
                if tokens.count > 1 { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { print(line) }
            }
        }
        if connection.json {
            printJSON(results)
        } else if tokens.count != 1 {
            print("renewed \(tokens.count - failures) of \(tokens.count)\(failures > 0 ? ", \(failures) failed" : "")")
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// Asks for the renewal, then waits until the license changes or the renewal fails.
    private func renewOne(_ client: SchedulerClient, _ token: String) async -> (error: String?, detail: String) {
        do {
            _ = try client.request(.renew(token: token, terms: license.terms, licenseURL: license.licenseURL))
            let deadline = monotonic() + 120
            while monotonic() < deadline {
                try await Task.sleep(for: .milliseconds(150))
                let now = try client.request(.license(token: token))
                // The scheduler marks the renewal as running before it answers; it ends with new terms or an error.
                if now.renewing { continue }
                if let e = now.lastError { return (e, "") }
                return (nil, "\(now.license?.kind.rawValue ?? "none"), expires \(now.license?.expiresAt ?? "never")")
            }
            return ("no answer from the license worker within 120 s", "")
        } catch {
            return ("\(error)", "")
        }
    }
}
