import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime

struct Submit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Queue a download of an HLS master (or media) playlist or a DASH MPD.",
        discussion: """
            Prints the title's token as the last line of stdout. With --wait, shows progress on stderr and \
            returns when the title ends: exit 0 only if it completed.

            Selection: --bitrate picks the highest variant not above it (none given: the lowest variant with \
            video); --audio picks languages (default: the DEFAULT rendition); --subtitles LANG,...|all|none.

            Live and event streams: --record records one (state `recording`): its playlists are reloaded as the \
            stream grows and every new segment is fetched and verified as it appears, from the start of the \
            window (--from start) or the live edge (--from live). The recording ends at the stream's end, after \
            --duration of media, or with `stowctl stop TOKEN`; it then completes as a VOD title. Segments that \
            left the window before they could be fetched are reported as gaps in `status`. A recording cannot \
            be paused (the window moves on while it waits): stop it instead. Without --record a live playlist \
            is refused.

            DASH: an .mpd URL takes the same selection options (Period by Period); the offline copy is a local \
            manifest.mpd. Media protected by a DRM only a device can license (Widevine, PlayReady, FairPlay) is \
            refused unless --allow-device-drm: then it is stored encrypted as delivered but never reported \
            playable here (`status` says why and what a device needs: `protection`). Clear Key and HLS AES-128 \
            keys are acquired and kept by Stowage.

            From another box: --from-peer http://box-a:8480 --peer-secret FILE ID makes title ID of that box's \
            gateway (FILE holds the secret of `stowctl devices add NAME --peer` there) from its files, each checked \
            against that box's SHA-256 as it streams in; a file it lacks or serves wrong comes from the origin. \
            The title is queued at once: a download worker fetches that box's manifest, and a box that cannot be \
            reached is waited for (suspended `network`) like an origin. \
            The license and keys are this box's own, from the title's license or key server. `status --json` \
            counts `filesFromPeer` and `filesFromOrigin`.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(
        help: "URL of the HLS master or media playlist, or of a DASH MPD (with --from-peer: the title's id there).")
    var url: String
    @Option(name: .customLong("from-peer"), help: "Fill from another box's gateway, e.g. http://box-a:8480.")
    var fromPeer: String?
    @Option(name: .customLong("peer-secret"), help: "With --from-peer: a file holding this box's peer secret there.")
    var peerSecret: String?
    @OptionGroup var select: SelectionOptions
    @Option(help: "A display name for the title.")
    var name: String?
    @Option(help: "A unique id of your choosing (the gateway's /resolve?id= and /titles/ID/ find it by it).")
    var id: String?
    @Option(help: "A poster / thumbnail image URL, fetched with the title (as poster.<ext> in its folder).")
    var poster: String?
    @Option(help: "Higher runs first (default 0).")
    var priority: Int = 0
    @Flag(help: "Wait until the title ends; exit 0 only if it completed.")
    var wait = false
    @Flag(help: "Record a live or event stream as it grows (see below).")
    var record = false
    @Option(
        help: ArgumentHelp("With --record: stop after this much media (90s, 15m, 2h).", valueName: "duration"),
        transform: TimeSpan.parsing)
    var duration: TimeSpan?
    @Option(help: "With --record: start at the oldest segment of the window (start) or at the live edge (live).")
    var from: RecordRequest.Start?
    @Flag(help: "Download media only a device's DRM can play (Widevine, PlayReady, FairPlay); never playable here.")
    var allowDeviceDrm = false
    @Option(
        name: .customLong("header-host"),
        help: ArgumentHelp(
            "Another host that gets the --header values (repeatable).",
            discussion: """
                Headers (Authorization, Cookie, API keys) go only to the host of URL and the hosts named here; \
                any other host a playlist names gets at most User-Agent, Referer, Accept, Accept-Language and Origin.
                """))
    var headerHosts: [String] = []
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "A content key the operator holds, KID:KEY in hex (repeatable; one per key ID of the title).",
            discussion: """
                For Common Encryption DASH whose owner has the keys: the title is licensed with them and the terms \
                given (--purchase, --rental …); no license server is asked. Kept wrapped like acquired keys.
                """))
    var keys: [String] = []
    @Option(
        help: ArgumentHelp(
            "Fetch this title only from HH:MM to HH:MM, local time (comma-separated for several).",
            discussion: """
                Replaces the box's --fill-window for this title, e.g. 01:00-06:00 or 22:00-06:00 across midnight. \
                Outside its windows it waits as suspended (window); `status --json` says when the next opens \
                (nextWindowAt).
                """,
            valueName: "HH:MM-HH:MM"))
    var window: FillSchedule?
    @Flag(help: "Fetch at once, whatever the fill windows say (also for a title already waiting for one).")
    var now = false
    @Option(
        help: ArgumentHelp(
            "Keep only this part of a VOD title (a clip): START-END as seconds, M:SS or H:MM:SS.",
            discussion: """
                Every rendition keeps the segments that overlap it (by media time), so the clip starts and ends on \
                segment boundaries; `status --json` reports them as `range`. Not with --record or --iframes.
                """,
            valueName: "START-END"),
        transform: ClipRange.parsing)
    var range: ClipRange?
    @Option(
        help: ArgumentHelp(
            "Also write the title as one file, title.mp4 or title.mkv in its folder, when it completes.",
            discussion: """
                The video, every kept audio language and the subtitles, without re-encoding (as `stowctl remux`), \
                hashed, verified and counted in the title's size and under the quota; the gateway serves it at \
                /titles/<id>/title.mp4. Only a clear title without license limits: refused for a protected title, \
                a rental, --play-duration, --play-count, --play-time, --record. [env: STOWAGE_FILE]
                """,
            valueName: "mp4|mkv"),
        transform: SingleFileFormat.parsing)
    var file: SingleFileFormat?
    @OptionGroup var license: LicenseOptions

    mutating func validate() throws {
        file = try EnvironmentRule.resolve(file, "file")
        if file != nil && record {
            throw ValidationError(
                "--file writes a VOD title as one file when it completes and --record records a live stream: "
                    + "remux the recording once it completes (`stowctl remux TOKEN OUT.mp4`)")
        }
        // Which titles may become one file is the scheduler's to say (``SingleFileClearance``, at submit and
        // when the source turns out protected): a refusal comes back as `refused`, exit 1.
        if let id, let why = TitleLabels.idProblem(id) { throw ValidationError("--id \(why)") }
        if fromPeer != nil || peerSecret != nil {
            guard fromPeer != nil, peerSecret != nil else {
                throw ValidationError("--from-peer URL and --peer-secret FILE go together")
            }
            guard !record, keys.isEmpty, range == nil else {
                throw ValidationError("--from-peer fills a title as that box has it: no --record, --key or --range")
            }
            return
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme)
        else {
            throw ValidationError("'\(url)' is not an http(s) URL")
        }
        if let poster, !(poster.hasPrefix("http://") || poster.hasPrefix("https://")) {
            throw ValidationError("--poster must be an http(s) URL")
        }
        if range != nil && record {
            throw ValidationError(
                "--range cuts a VOD title and --record records a live stream, which has no fixed media time to cut: "
                    + "use --duration to bound a recording")
        }
        if range != nil && select.iframes {
            throw ValidationError("--range keeps a clip and --iframes the whole title's I-frame playlist: give one")
        }
        if !record && (duration != nil || from != nil) {
            throw ValidationError("--duration and --from apply to recordings: add --record")
        }
        for key in keys {
            do { _ = try OperatorKey(parsing: key) } catch { throw ValidationError(error.description) }
        }
        if now && window != nil {
            throw ValidationError("--now fetches whatever the windows say: --window would not apply")
        }
        if !keys.isEmpty && license.licenseURL != nil {
            throw ValidationError("--key and --license-url are two sources of the same keys: give one")
        }
        if let duration, duration.seconds <= 0 {
            throw ValidationError("--duration takes a positive duration such as 90s, 15m or 2h")
        }
    }

    func run() async throws {
        var request = SubmitRequest(
            url: url, name: name, priority: priority, headers: select.parsedHeaders,
            selection: select.selection, terms: license.terms, licenseURL: license.licenseURL)
        request.posterURL = poster
        request.id = id
        request.window = window?.description
        request.range = range
        request.file = file
        if now { request.now = true }
        if allowDeviceDrm { request.allowDeviceDRM = true }
        if !headerHosts.isEmpty { request.headerHosts = headerHosts }
        if !keys.isEmpty { request.keys = try keys.map { try OperatorKey(parsing: $0) } }
        if record {
            request.record = RecordRequest(durationSeconds: duration?.seconds, from: from ?? .start)
        }
        if let fromPeer, let peerSecret {
            // The peer's manifest is fetched by the title's resolve, in a download worker under the network
            // policy: a peer that cannot be reached now is waited for like an origin, not a failed submit.
            let peer = try PeerSource(url: fromPeer, id: url, secret: Self.readSecret(peerSecret))
            if let problem = peer.problem { throw ValidationError(problem) }
            request.peer = peer
            request.url = peer.manifestURL
        }
        let client = try connection.client()
        let token = try client.request(.submit(request))
        guard wait else {
            if connection.json { printJSON(["token": token]) } else { print(token) }
            return
        }
        let final = try ProgressWatcher(client: client, tokens: [token], json: false, output: .standardError).run()
        // One document on stdout: with --json the final status when it completed, else only the error (the
        // error names the token); without, the token as the last line either way.
        if !connection.json { print(token) }
        if final[token]?.state == .completed, connection.json, let status = final[token] { printJSON(status) }
        if final[token]?.state != .completed {
            let reason =
                final[token]?.error.map { "[\($0.code.rawValue)] \($0.message)" }
                ?? final[token]?.state.rawValue ?? "unknown"
            throw Failure(
                "title \(token) did not complete: \(reason)", code: final[token]?.error?.code ?? .internal)
        }
    }
}

extension Submit {
    /// The peer secret in `path` (one line; surrounding whitespace is not part of it).
    static func readSecret(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw Failure("cannot read the peer secret from \(path): \(error.localizedDescription)", code: .io)
        }
    }
}

extension RecordRequest.Start: ExpressibleByArgument {}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "End a recording: what it found is fetched and verified, then it completes as a VOD title.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    func run() throws { try titleCommand(connection, title) { .stop(token: $0) } }
}
