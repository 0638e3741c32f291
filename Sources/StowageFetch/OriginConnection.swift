import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One plain-HTTP/1.1 connection to one origin that a fetch batch uses for its requests one after another
/// (keep-alive), with nothing between the task and the socket but NIO's HTTP codec: no connection pool, no
/// request state machine, no timers per request. On small segments that machinery cost more CPU than reading
/// the bytes; this connection asks for one hop to the event loop per request and one back per answer.
///
/// It serves GETs of `http://` URLs under ``Origin``; anything else (HTTPS, a redirect, a connection that
/// fails before the answer's head) goes through the general client, which knows redirects, TLS and the
/// error texts. Used by one task at a time; not thread-safe.
final class OriginConnection {
    let origin: Origin
    private var answers: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    private let requests: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    /// Inside an answer's body (not read to its end yet).
    private var inBody = false
    /// False once the server said it closes, or anything went wrong.
    private var open = true
    /// Requests answered whole on this connection.
    private(set) var served = 0

    /// Another request may be sent: the last answer was read to its end and the server keeps the connection.
    var reusable: Bool { open && !inBody }

    init(
        origin: Origin, answers: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
        requests: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) {
        self.origin = origin
        self.answers = answers.makeAsyncIterator()
        self.requests = requests
    }

    /// Socket reads (up to 64 KiB each) held for the task before reading stops: a small answer is one read, a
    /// large one streams through a few buffers (the worker's memory bound holds with every connection busy).
    static let buffered = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
        lowWatermark: 1, highWatermark: 2)

    /// How long the origin may stay silent while an answer is awaited or streams in.
    static let readTimeout = TimeAmount.seconds(30)

    /// Opens a connection to `origin` (within 10 s) and runs `body` with it; closes it afterwards.
    static func with(
        _ origin: Origin, isolation: isolated (any Actor)? = #isolation, _ body: (OriginConnection) async throws -> Void
    ) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: origin.host, port: origin.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(IdleStateHandler(readTimeout: readTimeout))
                    try sync.addHandler(SilenceAsError())
                    try sync.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel, configuration: .init(backPressureStrategy: buffered))
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            try await body(OriginConnection(origin: origin, answers: inbound, requests: outbound))
        }
    }

    /// Sends `GET target` with `headers` (a `Host` header is added) and returns the answer's head; its body
    /// follows through ``nextBody()``. Informational (1xx) answers are skipped.
    func get(_ target: String, headers: HTTPHeaders) async throws -> HTTPResponseHead {
        guard reusable else { throw ChannelError.ioOnClosedChannel }
        open = false  // until the answer's head says otherwise
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: origin.authority)
        try await requests.write(contentsOf: [.head(head), .end(nil)])
        while true {
            guard let part = try await answers.next() else { throw ChannelError.eof }
            guard case .head(let answer) = part else { throw ChannelError.eof }
            inBody = true
            open = true
            if answer.status.code >= 100 && answer.status.code < 200 && answer.status.code != 101 {
                while try await nextBody() != nil {}
                continue
            }
            open = answer.isKeepAlive && answer.status.code != 101
            return answer
        }
    }

    /// The next piece of the answer's body, nil at its end.
    func nextBody() async throws -> ByteBuffer? {
        guard inBody else { return nil }
        do {
            switch try await answers.next() {
            case .body(let buffer): return buffer
            case .end:
                inBody = false
                served += 1
                return nil
            case .head, nil: throw ChannelError.eof
            }
        } catch {
            open = false
            throw error
        }
    }

    /// Reads and drops the rest of an answer (at most `limit` bytes; more closes the connection instead).
    func discardBody(limit: Int = 64 << 10) async {
        var seen = 0
        while seen <= limit, let buffer = try? await nextBody() { seen += buffer.readableBytes }
        if inBody { open = false }
    }
}

/// A read timeout (`IdleStateHandler`) ends the connection with an error that names it, not a silent close.
private final class SilenceAsError: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.fireErrorCaught(OriginConnectionError.readTimeout)
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}

/// The errors of an ``OriginConnection`` that are its own.
enum OriginConnectionError: Error {
    /// The origin sent nothing for ``OriginConnection/readTimeout``.
    case readTimeout
}
