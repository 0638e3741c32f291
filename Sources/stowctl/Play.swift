import ArgumentParser
import Foundation
import Logging
import StowageFetch
import StowagePlayback
import StowageProcess
import StowageProtocol
import StowageRuntime
import Synchronization
import ZeroMQ

struct Playable: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 if the title can be played offline now, else 1 with the reason.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef

    func run() throws {
        let client = try connection.client()
        let verdict = try client.request(.playable(token: title.resolve(with: client)))
        if connection.json {
            printJSON(verdict)
        } else {
            print(verdict.playable ? "playable" : "not playable: \(verdict.reason ?? "")")
        }
        if !verdict.playable { throw ExitCode(1) }
    }
}

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Authorise one play and serve the offline copy on 127.0.0.1.",
        discussion: """
            Counts the play, then serves the title (byte ranges supported) until stopped with Ctrl-C or SIGTERM. \
            A title still downloading can be played too: what is on disk is served from disk, the rest is fetched \
            from the origin on demand (kept in memory, not counted as downloaded). \
            Prints the URL of its master playlist (a DASH title's manifest.mpd); any HLS or DASH player (ffplay, \
            VLC, hls.js, dash.js) can open it. Content keys are released at /keys/N, and Clear Key licenses at \
            POST /clearkey, only while the license allows.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleRef
    @Option(help: "Port to serve on (default: any free port).")
    var port: Int = 0

    func run() async throws {
        let client = LockedClient(try connection.client())
        let token = try client.resolve(title)
        let auth = try client.request(.play(token: token))
        guard auth.playable, let directory = auth.directory, let entry = auth.entryPlaylist else {
            throw Failure("cannot play \(token): \(auth.reason ?? "not playable")", code: .license)
        }
        let logger = Logger(label: "stowctl.play")
        let root = URL(fileURLWithPath: directory)
        // Still downloading: what is not on disk yet is streamed from the origin.
        let streaming = auth.streaming.map {
            StreamingSource(
                directory: root, plan: $0, fetcher: HTTPFetcher(logger: logger, connectionsPerHost: 4))
        }
        do {
            try await serve(
                root: root, entry: entry, client: client, streaming: streaming, clearKeyIDs: auth.clearKeyIDs ?? [:],
                token: token, durations: auth.mediaDurations, logger: logger)
        } catch {
            await streaming?.shutdown()
            throw error
        }
        await streaming?.shutdown()
    }

    /// Serves until SIGTERM or SIGINT; a thread of its own reports the media played every second.
    private func serve(
        root: URL, entry: String, client: LockedClient, streaming: StreamingSource?, clearKeyIDs: [String: Int],
        token: String, durations: [String: Double]?, logger: Logger
    ) async throws {
        let json = connection.json
        let meter =
            durations.map { PlayMeter(durations: $0) } ?? PlayMeter(directory: root, playlists: streaming?.playlists)
        let keys: PlaybackServer.KeyProvider = { index in
            await offloaded {
                do {
                    return .success(try client.request(.key(token: token, index: index)))
                } catch {
                    return .failure(.init("\(error)"))
                }
            }
        }
        let server = PlaybackServer(
            files: TitleFileServer(root: root, streaming: streaming), meter: meter, keys: keys, clearKeyIDs: clearKeyIDs
        )
        let app = server.application(host: "127.0.0.1", port: port, logger: logger) { bound in
            let url = "http://127.0.0.1:\(bound)/\(entry)"
            logger.info("serving", metadata: ["root": "\(root.path)", "url": "http://127.0.0.1:\(bound)/"])
            // Written unbuffered: scripts wait for this line while the server keeps running.
            let line = json ? "{\"token\":\"\(token)\",\"url\":\"\(url)\"}" : url
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        let stop = ShutdownSignal()
        let reporting = PollLoopService(name: "stowctl-play", stop: stop) {
            let waker = Waker()
            stop.notify(waker)
            while !stop.isRequested {
                _ = try? Poller.poll([.fileDescriptor(waker.fd, .readable)], timeoutMilliseconds: 1000)
                Self.report(meter, to: client, token: token, server: server)
            }
            Self.report(meter, to: client, token: token, server: server)
        }
        try await Lifecycle.run([app, reporting], logger: logger)
    }

    /// Reports the media played since the last report; when the license no longer allows playing, the server
    /// stops serving.
    private static func report(_ meter: PlayMeter, to client: LockedClient, token: String, server: PlaybackServer) {
        let seconds = meter.drain()
        guard seconds > 0 else { return }
        _ = try? client.request(.played(token: token, seconds: seconds))
        if let report = try? client.request(.license(token: token)), report.license?.expired == true {
            server.refuse("the license no longer allows playing")
        }
    }
}

/// The scheduler client shared by the playback server's key requests and the play meter, one request at a
/// time: the client's socket is not thread-safe, so it lives inside the lock.
final class LockedClient: Sendable {
    private let client: Mutex<SchedulerClient>

    init(_ client: sending SchedulerClient) { self.client = Mutex(client) }

    /// See ``SchedulerClient/request(_:timeout:)``.
    func request<Request: SchedulerRequest>(_ request: Request) throws -> Request.Reply {
        try client.withLock { try $0.request(request) }
    }

    /// The token `title` names (``TitleRef``).
    func resolve(_ title: TitleRef) throws -> String {
        try client.withLock { try title.resolve(with: $0) }
    }
}
