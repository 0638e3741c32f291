import ArgumentParser
import Foundation
import StowageProtocol
import StowageRuntime

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Queue a download of an HLS master (or media) playlist.",
        discussion: """
            Prints the title's token as the last line of stdout. With --wait, shows progress on stderr and \
            returns when the title ends: exit 0 only if it completed.

            Selection: --bitrate picks the highest variant not above it (none given: the lowest variant with \
            video); --audio picks languages (default: the DEFAULT rendition); --subtitles LANG,...|all|none.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "URL of the HLS master or media playlist.")
    var url: String
    @OptionGroup var select: SelectionOptions
    @Option(help: "A display name for the title.")
    var name: String?
    @Option(help: "A poster / thumbnail image URL, fetched with the title (as poster.<ext> in its folder).")
    var poster: String?
    @Option(help: "Higher runs first (default 0).")
    var priority: Int = 0
    @Flag(help: "Wait until the title ends; exit 0 only if it completed.")
    var wait = false
    @OptionGroup var license: LicenseOptions

    func validate() throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme)
        else {
            throw ValidationError("'\(url)' is not an http(s) URL")
        }
        if let poster, !(poster.hasPrefix("http://") || poster.hasPrefix("https://")) {
            throw ValidationError("--poster must be an http(s) URL")
        }
    }

    func run() throws {
        var request = SubmitRequest(
            url: url, name: name, priority: priority, headers: select.parsedHeaders,
            selection: select.selection, terms: license.terms, licenseURL: license.licenseURL)
        request.posterURL = poster
        let client = try connection.client()
        let token = try client.request(.submit(request), expecting: Reply.submitted)
        guard wait else {
            if connection.json { printJSON(["token": token]) } else { print(token) }
            return
        }
        let final = try ProgressWatcher(client: client, tokens: [token], json: false, output: .standardError).run()
        if connection.json, let status = final[token] { printJSON(status) }
        print(token)
        if final[token]?.state != .completed {
            let reason =
                final[token]?.error.map { "[\($0.code.rawValue)] \($0.message)" }
                ?? final[token]?.state.rawValue ?? "unknown"
            throw Failure("title \(token) did not complete: \(reason)")
        }
    }
}
