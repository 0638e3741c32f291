import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import StowageProtocol
import Synchronization

/// Serves a directory over HTTP/1.1 with keep-alive and byte ranges: the development HLS origin
/// (`stowage-origin serve`, which can add latency and log every request) and the offline playback server
/// (`stowctl play`, which also answers `/keys/<n>` through a key provider that asks the scheduler).
public final class OriginServer: Sendable {
    /// Answers a content key request: the 16 key bytes, or why it is refused.
    public typealias KeyProvider = @Sendable (Int) -> Result<[UInt8], KeyRefusal>

    /// Answers a request for a file that is not on disk (`stowctl play` of a title still downloading): nil
    /// when the path is unknown (404), else the file's bytes or why they could not be had (502). Called off
    /// the event loop; it may block.
    public typealias ContentProvider = @Sendable (String) -> Result<Data, KeyRefusal>?

    public struct KeyRefusal: Error, Sendable {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    public struct Options: Sendable {
        public var root: URL
        public var host: String
        public var port: Int
        /// Milliseconds to wait before answering each request (makes titles take a while).
        public var latencyMilliseconds: Int
        /// Append one line per request here: `<epoch> <method> <path> <status> <bytes> <range or ->`.
        public var accessLog: String?
        /// Send bodies at most this fast per response (bytes/s, 0 = unlimited), in 16 KiB chunks.
        public var throttleBytesPerSecond: Int
        /// Probability of a fault on each media request (0 = none), and the seed of the draw.
        public var faultProbability: Double = 0
        public var faultSeed: UInt64 = 1
        /// Paths answered with `302 Found` and this `Location`.
        public var redirects: [String: String] = [:]
        /// Imitate CDN token auth: sign every URI in served playlists for this many seconds, and answer 403 for
        /// any other file without a valid, unexpired signature (nil = off). See ``URLSigner``.
        public var signURLs: TimeInterval?
        /// Serve every media playlist as a live stream that grows with time (nil = as on disk). See ``LiveStream``.
        public var live: LiveOptions?

        public init(
            root: URL, host: String = "127.0.0.1", port: Int = 8080, latencyMilliseconds: Int = 0,
            accessLog: String? = nil,
            throttleBytesPerSecond: Int = 0
        ) {
            self.root = root
            self.host = host
            self.port = port
            self.latencyMilliseconds = latencyMilliseconds
            self.accessLog = accessLog
            self.throttleBytesPerSecond = throttleBytesPerSecond
        }
    }

    let options: Options
    let logger: Logger
    let log: AccessLog?
    let keyProvider: KeyProvider?
    let contentProvider: ContentProvider?
    /// The reference license server (`POST /license`), when configured.
    public let licenses: LicenseServer?
    /// Called after each file answer: (path, bytes sent, file size). `stowctl play` turns it into play time.
    public typealias ServedHook = @Sendable (String, Int, Int) -> Void
    let onServed: ServedHook?
    private let refusal = Mutex<String?>(nil)

    /// From now on, answer every file request with 403 and this reason (the license no longer allows playing).
    public func refuse(_ reason: String) { refusal.withLock { $0 = reason } }
    var refused: String? { refusal.withLock { $0 } }

    /// What this server observed (served at `/__stats`).
    public let stats = OriginStats()
    let faults: FaultInjector
    /// Signs playlists and checks signatures, when `Options.signURLs` is set.
    let signer: URLSigner?
    /// Renders media playlists live and serves rotation keys, when `Options.live` is set.
    let live: LiveStream?

    public init(
        options: Options, logger: Logger, keyProvider: KeyProvider? = nil, licenses: LicenseServer? = nil,
        onServed: ServedHook? = nil, contentProvider: ContentProvider? = nil
    ) {
        self.options = options
        self.contentProvider = contentProvider
        self.onServed = onServed
        self.logger = logger
        self.keyProvider = keyProvider
        self.licenses = licenses
        faults = FaultInjector(probability: options.faultProbability, seed: options.faultSeed)
        signer = options.signURLs.map { URLSigner(ttl: $0) }
        live = options.live.map { LiveStream(root: options.root, options: $0) }
        log = options.accessLog.map(AccessLog.init(path:))
    }

    /// Binds and serves until the process ends. Returns the bound port (useful with port 0).
    /// Throws when `Options.live` cannot serve a media playlist under the root.
    public func start() throws -> (Channel, Int) {
        try live?.load()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
                    channel.pipeline.addHandler(FileHandler(server: self))
                }
            }
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
        let channel = try bootstrap.bind(host: options.host, port: options.port).wait()
        let port = channel.localAddress?.port ?? options.port
        logger.info("serving", metadata: ["root": "\(options.root.path)", "url": "http://\(options.host):\(port)/"])
        return (channel, port)
    }

    /// The file for a request path (the root itself for `/`), or nil if it would leave the root.
    func file(for uriPath: String) -> URL? {
        guard let relative = TitlePath.relative(rawPath: uriPath) else { return nil }
        return relative.isEmpty ? options.root : TitlePath.file(relative, under: options.root, for: .served)
    }
}

/// Thread-safe appends to the access log: one line per request,
/// `<epoch> <method> <path> <status> <bytes> <range> <if-range> <credentials>`, where `<range>` is the `Range`
/// header without spaces, `<if-range>` the `If-Range` validator with spaces as `%20` (an HTTP date has some), and
/// `<credentials>` which of `authorization`, `cookie` the request carried (comma-separated, values never logged);
/// `-` when absent.
final class AccessLog: Sendable {
    let path: String
    private let lock = Mutex(())

    init(path: String) {
        self.path = path
        FileManager.default.createFile(atPath: path, contents: nil)
    }

    /// The `<range> <if-range> <credentials>` fields of a request.
    static func conditionFields(_ request: HTTPRequestHead) -> String {
        let range = request.headers.first(name: "Range")?.replacingOccurrences(of: " ", with: "") ?? "-"
        let ifRange = request.headers.first(name: "If-Range")?.replacingOccurrences(of: " ", with: "%20") ?? "-"
        let credentials = ["authorization", "cookie"].filter { request.headers.contains(name: $0) }
        let carried = credentials.isEmpty ? "-" : credentials.joined(separator: ",")
        return "\(range.isEmpty ? "-" : range) \(ifRange.isEmpty ? "-" : ifRange) \(carried)"
    }

    func record(_ line: String) {
        lock.withLock { _ in
            guard let h = FileHandle(forWritingAtPath: path) else { return }
            h.seekToEndOfFile()
            h.write(Data((line + "\n").utf8))
            try? h.close()
        }
    }
}
