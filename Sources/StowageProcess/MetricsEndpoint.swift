import Foundation
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import StowageRuntime
import Synchronization

/// Prometheus metrics for one process: swift-metrics is bootstrapped with a Prometheus registry, and
/// `GET /metrics` on `--metrics [HOST:]PORT` (or `STOWAGE_METRICS`) answers in the text exposition format.
public enum MetricsEndpoint {
    private static let registry = PrometheusCollectorRegistry()
    private static let started = Mutex(false)

    /// Bootstraps swift-metrics once per process (also without an endpoint, so the code paths are the same).
    public static func bootstrap() {
        started.withLock { done in
            guard !done else { return }
            done = true
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        }
    }

    /// The exposition text, as `/metrics` serves it.
    public static func exposition() -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Bootstraps metrics and, when `address` is given (`PORT` or `HOST:PORT`; host default 127.0.0.1),
    /// binds `/metrics`. Returns the listener as a service (it serves until graceful shutdown), or nil.
    public static func start(address: String?, logger: Logger) async throws -> ChannelService? {
        bootstrap()
        guard let address else { return nil }
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        let host = parts.count > 1 ? parts.dropLast().joined(separator: ":") : "127.0.0.1"
        guard let port = Int(parts.last ?? ""), (0...65_535).contains(port) else {
            throw RuntimeError("--metrics takes PORT or HOST:PORT, e.g. 9464 or 0.0.0.0:9464 (got '\(address)')")
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(MetricsHandler()) }
            }
            .bind(host: host.isEmpty ? "127.0.0.1" : host, port: port).get()
        let bound = channel.localAddress?.port ?? port
        logger.info("metrics", metadata: ["url": "http://\(host):\(bound)/metrics"])
        return ChannelService(name: "metrics", channel: channel, port: bound)
    }
}

/// Answers `GET /metrics`; anything else is 404.
private final class MetricsHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let found = head.method == .GET && (head.uri == "/metrics" || head.uri.hasPrefix("/metrics?"))
        let body = found ? MetricsEndpoint.exposition() : "not found: try /metrics\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        let status: HTTPResponseStatus = found ? .ok : .notFound
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
