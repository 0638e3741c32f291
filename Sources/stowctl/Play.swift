import ArgumentParser
import Foundation
import Logging
import NIOCore
import StowageOrigin
import StowageProtocol
import StowageRuntime
import ZeroMQ

struct Playable: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 if the title can be played offline now, else 1 with the reason.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token.")
    var token: String

    func run() throws {
        guard case .play(let verdict) = try connection.client().request(.playable(token: token)).checked() else {
            throw Failure(description: "unexpected reply")
        }
        if connection.json { printJSON(verdict) } else { print(verdict.playable ? "playable" : "not playable: \(verdict.reason ?? "")") }
        if !verdict.playable { throw ExitCode(1) }
    }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Authorise one play and serve the offline copy on 127.0.0.1.",
        discussion: """
        Counts the play, then serves the title (byte ranges supported) until stopped with Ctrl-C or SIGTERM. \
        A title still downloading can be played too: what is on disk is served from disk, the rest is fetched \
        from the origin on demand (kept in memory, not counted as downloaded). \
        Prints the URL of its master playlist; any HLS player (ffplay, VLC, hls.js) can open it. Content keys \
        are released at /keys/N only while the license allows.
        """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title's token.")
    var token: String
    @Option(help: "Port to serve on (default: any free port).")
    var port: Int = 0

    func run() throws {
        let client = LockedClient(try connection.client())
        guard case .play(let auth) = try client.request(.play(token: token)).checked() else { throw Failure(description: "unexpected reply") }
        guard auth.playable, let directory = auth.directory, let entry = auth.entryPlaylist else {
            throw Failure(description: "cannot play \(token): \(auth.reason ?? "not playable")")
        }
        let token = self.token
        let root = URL(fileURLWithPath: directory)
        // Still downloading: what is not on disk yet is streamed from the origin.
        let streaming = auth.streaming.map { StreamingSource(directory: root, plan: $0, logger: Logger(label: "stowctl.play")) }
        defer { streaming?.shutdown() }
        let meter = PlayMeter(durations: PlayMeter.segmentDurations(playlists: streaming?.playlists ?? PlayMeter.playlists(in: root)))
        let keys: OriginServer.KeyProvider = { index in
            do {
                guard case .key(let text) = try client.request(.key(token: token, index: index)).checked(),
                      let data = Data(base64Encoded: text) else { return .failure(.init("unexpected reply")) }
                return .success(Array(data))
            } catch {
                return .failure(.init("\(error)"))
            }
        }
        var provider: OriginServer.ContentProvider?
        if let streaming { provider = { path in streaming.provide(path) } }
        let server = OriginServer(options: .init(root: root, host: "127.0.0.1", port: port),
                                  logger: Logger(label: "stowctl.play"), keyProvider: keys,
                                  onServed: { path, sent, size in meter.served(path, sent: sent, size: size) },
                                  contentProvider: provider)
        let (channel, bound) = try server.start()
        let url = "http://127.0.0.1:\(bound)/\(entry)"
        // Written unbuffered: scripts wait for this line while the server keeps running.
        let line = connection.json ? "{\"token\":\"\(token)\",\"url\":\"\(url)\"}" : url
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        let shutdown = ShutdownSignal()
        let waker = Waker()
        shutdown.notify(waker)
        while !shutdown.isRequested {
            _ = try? Poller.poll([.fileDescriptor(waker.fd, .readable)], timeoutMilliseconds: 1000)
            meter.report(to: client, token: token, server: server)
        }
        meter.report(to: client, token: token, server: server)
        try? channel.close().wait()
    }
}

/// The scheduler client shared by the playback server's key requests (one at a time).
final class LockedClient: @unchecked Sendable {
    private let client: SchedulerClient
    private let lock = NSLock()

    init(_ client: SchedulerClient) { self.client = client }

    func request(_ operation: ClientOperation) throws -> ReplyBody {
        lock.lock()
        defer { lock.unlock() }
        return try client.request(operation)
    }
}

/// Accounts the media actually served (segment durations, in proportion for byte ranges) and reports it
/// to the scheduler; when the license no longer allows playing, the server stops serving.
final class PlayMeter: @unchecked Sendable {
    private let durations: [String: Double]
    private var pending = 0.0
    private let lock = NSLock()

    init(durations: [String: Double]) { self.durations = durations }

    func served(_ path: String, sent: Int, size: Int) {
        guard let duration = durations[path], size > 0 else { return }
        lock.lock()
        pending += duration * Double(sent) / Double(size)
        lock.unlock()
    }

    func report(to client: LockedClient, token: String, server: OriginServer) {
        lock.lock()
        let seconds = pending
        pending = 0
        lock.unlock()
        guard seconds > 0 else { return }
        _ = try? client.request(.played(token: token, seconds: seconds))
        if case .license(let report)? = try? client.request(.license(token: token)), report.license?.expired == true {
            server.refuse("the license no longer allows playing")
        }
    }

    /// The offline media playlists of a stored title (folder/index.m3u8 -> text).
    static func playlists(in directory: URL) -> [String: String] {
        var out: [String: String] = [:]
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            let path = "\(folder)/index.m3u8"
            if let text = try? String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8) { out[path] = text }
        }
        return out
    }

    /// `/<media playlist folder>/<segment>` -> EXTINF duration, from the offline media playlists.
    static func segmentDurations(playlists: [String: String]) -> [String: Double] {
        var out: [String: Double] = [:]
        // Media time is counted once: on the video rendition when there is one (audio and subtitles run beside it).
        let media = playlists.filter { $0.key.hasSuffix("/index.m3u8") }
        let folders = Set(media.keys.map { String($0.dropLast("/index.m3u8".count)) })
        let counted = folders.contains("video") ? ["video"] : Array(folders)
        for folder in counted {
            guard let text = media["\(folder)/index.m3u8"] else { continue }
            var duration: Double?
            for line in text.split(separator: "\n") {
                if line.hasPrefix("#EXTINF:") {
                    duration = Double(line.dropFirst(8).split(separator: ",").first ?? "")
                } else if !line.hasPrefix("#"), let d = duration {
                    out["/\(folder)/\(line)"] = d
                    duration = nil
                }
            }
        }
        return out
    }
}
