import ArgumentParser
import Foundation
import Logging
import StowageOrigin
import StowageProcess
import StowageProtocol

@main
struct OriginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-origin",
        abstract: "A development HLS origin for Stowage's demo, tests and benchmarks.",
        subcommands: [Serve.self, Sample.self])

    /// As `AsyncParsableCommand.main()`, but a usage error exits 2, as every Stowage executable's does.
    static func main() async { await topLevelMain() }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a directory over HTTP/1.1 (keep-alive, byte ranges) on 127.0.0.1.",
        discussion: "Prints 'listening http://HOST:PORT/' on stdout once ready. SIGTERM (or SIGINT) stops it.")

    @Option(help: "Directory to serve.")
    var root: String
    @Option(help: "Address to bind.")
    var host = "127.0.0.1"
    @Option(help: "Port (0 = any free port).")
    var port = 8080
    @Option(name: .customLong("latency-ms"), help: "Delay every answer by this many milliseconds.")
    var latencyMs = 0
    @Option(
        name: .customLong("access-log"),
        help: """
            Append a line per request to this file: <epoch> <method> <path> <status> <bytes> <range> <if-range>.
            """)
    var accessLog: String?
    @Option(
        name: .customLong("throttle-bps"),
        help: ArgumentHelp(
            "Send each body at most this fast: bytes/s or 500K, 2M (binary; 0 = unlimited).", valueName: "rate"),
        transform: ByteRate.parsing)
    var throttleBps = ByteRate(bytesPerSecond: 0)
    @Option(
        help: """
            Probability (0…1) of a fault on each media request: reset, truncated body, 503 + Retry-After, stall.
            """)
    var faults = 0.0
    @Option(help: "Seed of the fault draw.")
    var seed: UInt64 = 1
    @Option(
        name: .customLong("license-policy"),
        help: """
            Serve the reference license API at POST /license with this JSON policy (re-read on every request).
            """)
    var licensePolicy: String?
    @Option(
        name: .customLong("grant-log"),
        help: "Append one JSON line per license granted (and per injected failure) to this file.")
    var grantLog: String?
    @Option(
        help: """
            Answer a path with 302 Found: PATH=LOCATION, e.g. /old.m3u8=/master.m3u8 (repeatable; for redirect tests).
            """)
    var redirect: [String] = []
    @Option(
        name: .customLong("sign-urls"),
        help: ArgumentHelp(
            "Imitate CDN token auth with URLs that expire after TTL (plain seconds, or 20s, 15m, 2h).",
            discussion: """
                Every playlist is served with each URI it references (segments, variants, keys, init sections) \
                signed: exp=<unix time now+TTL>&sig=<HMAC-SHA256 of \"<absolute path>|<exp>\"> is appended to its \
                query, with a key that is random per process. Playlists need no signature, but every other file \
                does: without a valid one the answer is 403 "URL signature missing or invalid", after exp it is \
                403 "URL expired". Use it to test that a client refreshes its playlists when URLs expire.
                """, valueName: "TTL"), transform: SecondsOrSpan.parsing)
    var signUrls: SecondsOrSpan?

    @Flag(
        name: .customLong("live"),
        help: ArgumentHelp(
            "Serve every media playlist as a live stream that grows with time (tune with the --live-* options).",
            discussion: """
                A VOD media playlist (one with #EXTINF) is served as a live one: segments appear as time passes \
                since the server started, with #EXT-X-MEDIA-SEQUENCE, #EXT-X-DISCONTINUITY-SEQUENCE and the KEY \
                and MAP in force kept right, and #EXT-X-ENDLIST once every segment is out. Master playlists and \
                segments are served as they are; all renditions share one clock, so they stay aligned. Live \
                playlists are sent whole with Cache-Control: no-store. Use it to test a recorder that reloads \
                media playlists (RFC 8216 §6.3.4). A static MPD with SegmentTemplates is served as a dynamic one \
                anchored at the server's start: $Number$ with @duration as it is, a SegmentTimeline cut to the \
                complete segments; a UTCTiming (http-xsdate) names the origin's clock at /live-time; media \
                segments asked for before they are complete answer 404; once every segment is out the MPD is \
                static again. An MPD of several Periods changes Period live: each Period appears when the \
                origin's clock reaches its @start (an ad break, a programme change), the newest without \
                @duration, each timeline counted from its Period's start. For MPDs --live-window, --live-start \
                and --live-clock-offset apply.
                """))
    var live = false
    @Option(
        name: .customLong("live-window"),
        help: ArgumentHelp(
            "Segments in the sliding window; 0 = an EVENT playlist that only grows.",
            discussion: """
                With N ≥ 1 the playlist shows the last N available segments and its media sequence counts the \
                ones that left; with 0 it keeps every segment and says #EXT-X-PLAYLIST-TYPE:EVENT.
                """, valueName: "N"))
    var liveWindow = 0
    @Option(
        name: .customLong("live-speed"),
        help: ArgumentHelp(
            "Time factor: 2 plays out twice as fast as real time, 0.5 half as fast.",
            discussion: """
                A segment appears when the sum of the EXTINF durations up to and including it, divided by X, \
                has elapsed since the server started.
                """, valueName: "X"))
    var liveSpeed = 1.0
    @Option(
        name: .customLong("live-start"), help: ArgumentHelp("Segments available at time 0.", valueName: "N"))
    var liveStart = 1
    @Option(
        name: .customLong("live-stall-after"),
        help: ArgumentHelp(
            "Stop growing after N segments and never end: a stalled stream (no #EXT-X-ENDLIST).", valueName: "N"))
    var liveStallAfter: Int?
    @Option(
        name: .customLong("live-discontinuity-at"),
        help: ArgumentHelp(
            "Insert #EXT-X-DISCONTINUITY before segment N (0-based, counted in the VOD playlist; repeatable).",
            valueName: "N"))
    var liveDiscontinuityAt: [Int] = []
    @Option(
        name: .customLong("live-key-every"),
        help: ArgumentHelp(
            "Rotate AES-128 keys every N segments (the VOD segments must be clear, without byte ranges).",
            discussion: """
                Segment i is encrypted (AES-128-CBC, PKCS7 padding) with key i/N, a random 16-byte key per \
                process served at /live-keys/<k>; the IV is the segment's media sequence number (no IV \
                attribute, RFC 8216 §5.2). The playlist names the key before the first segment and wherever \
                it changes.
                """, valueName: "N"))
    var liveKeyEvery: Int?
    @Option(
        name: .customLong("live-retain"),
        help: ArgumentHelp(
            "With --live-window: a segment that left the window more than N segments ago answers 404.",
            discussion: "Without it, segments are served forever. Segments not yet in the playlist are served.",
            valueName: "N"))
    var liveRetain: Int?
    @Option(
        name: .customLong("live-clock-offset"),
        help: ArgumentHelp(
            "Seconds added to the origin's clock in live MPDs (availabilityStartTime and the UTCTiming answer).",
            discussion: "An origin whose clock is off from the box's: -300 runs five minutes behind.",
            valueName: "SECONDS"))
    var liveClockOffset = 0.0
    @Option(
        name: .customLong("live-segment-lag"),
        help: ArgumentHelp(
            "Seconds a live MPD's media segment answers 404 after the MPD lists it (a CDN filled late).",
            valueName: "SECONDS"))
    var liveSegmentLag = 0.0
    @Option(
        name: .customLong("live-stall-for"),
        help: ArgumentHelp(
            "With --live-stall-after N: a live MPD stops growing after N segments for SECONDS, then goes on.",
            discussion: """
                A packager that stopped and came back: its SegmentTimeline gets no new segment and its media \
                segments of the stall answer 404; afterwards it is at the origin's time again, and what left the \
                window meanwhile is gone.
                """, valueName: "SECONDS"))
    var liveStallFor: Double?

    /// The live options, or nil without --live.
    var liveOptions: LiveOptions? {
        guard live else { return nil }
        var options = LiveOptions(
            window: liveWindow, speed: liveSpeed, start: liveStart, stallAfter: liveStallAfter,
            discontinuityAt: Set(liveDiscontinuityAt), keyEvery: liveKeyEvery, retain: liveRetain)
        options.clockOffset = liveClockOffset
        options.segmentLag = liveSegmentLag
        options.stallFor = liveStallFor
        return options
    }

    func validate() throws {
        if let signUrls, signUrls.seconds <= 0 {
            throw ValidationError("--sign-urls takes a positive duration such as 20s, 15m, 2h or 90 (seconds)")
        }
        let liveSet: [(String, Bool)] = [
            ("--live-window", liveWindow != 0), ("--live-speed", liveSpeed != 1), ("--live-start", liveStart != 1),
            ("--live-stall-after", liveStallAfter != nil), ("--live-discontinuity-at", !liveDiscontinuityAt.isEmpty),
            ("--live-key-every", liveKeyEvery != nil), ("--live-retain", liveRetain != nil),
            ("--live-clock-offset", liveClockOffset != 0), ("--live-segment-lag", liveSegmentLag != 0),
            ("--live-stall-for", liveStallFor != nil),
        ]
        if !live, let set = liveSet.first(where: { $0.1 }) {
            throw ValidationError("\(set.0) needs --live")
        }
        if let problem = liveOptions?.problem { throw ValidationError(problem) }
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "stowage.origin")
        var options = OriginServer.Options(
            root: URL(fileURLWithPath: root), host: host, port: port,
            latencyMilliseconds: latencyMs, accessLog: accessLog,
            throttleBytesPerSecond: Int(throttleBps.bytesPerSecond))
        options.faultProbability = faults
        options.faultSeed = seed
        options.signURLs = signUrls?.seconds
        options.live = liveOptions
        for rule in redirect {
            let parts = rule.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("/") else {
                throw ValidationError("--redirect takes PATH=LOCATION, e.g. /a.m3u8=/b.m3u8")
            }
            options.redirects[parts[0]] = parts[1]
        }
        let licenses: LicenseServer? =
            (licensePolicy != nil || grantLog != nil)
            ? LicenseServer(policyPath: licensePolicy, grantLogPath: grantLog) : nil
        let server = OriginServer(options: options, logger: logger, licenses: licenses)
        let (channel, bound) = try server.start()
        FileHandle.standardOutput.write(Data("listening http://\(host):\(bound)/\n".utf8))
        try await Lifecycle.run([ChannelService(name: "origin", channel: channel, port: bound)], logger: logger)
    }
}

struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate a small three-variant HLS sample title with ffmpeg into DIR.")

    @Argument(help: "Where to write master.m3u8 and its renditions.")
    var directory: String
    @Option(help: "Length in seconds.")
    var seconds = 12

    func run() throws {
        try SampleTitle.generate(into: URL(fileURLWithPath: directory), seconds: seconds)
        print(URL(fileURLWithPath: directory).appendingPathComponent("master.m3u8").path)
    }
}
