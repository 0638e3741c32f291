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
///
/// Pipelining (RFC 9112 §9.3): once the origin has answered a request on this connection and kept it open, the
/// requests of the next few files may be written ahead in one write (``sendAhead(_:)``); ``get(_:headers:)``
/// then reads their answers in order instead of writing again. One socket write and one wake-up of the origin
/// serve several files. A `get` that is not the request written next ends the connection (its answers are in
/// the way) and goes elsewhere; an origin that closes after an answer leaves the requests after it unanswered,
/// and the batch asks for them again on a new connection (GETs, safe to repeat).
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
    /// Requests written ahead whose answers are not read yet, oldest first.
    private var ahead: [HTTPRequestHead] = []
    private var aheadStart = 0

    /// Another request may be sent: the last answer was read to its end and the server keeps the connection.
    var reusable: Bool { open && !inBody }

    /// Requests may be written ahead now: the origin answered one here and kept the connection, and every
    /// request written ahead before has been answered.
    var wantsAhead: Bool { reusable && served > 0 && aheadStart == ahead.count }

    /// The most requests written ahead at once: 16 answers of 4 KB are about one socket read; more would only add
    /// requests to write again when an origin closes the connection, and fewer leave the link idle between reads.
    static let pipelineDepth = 16

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

    /// Opens a connection to `origin` (within 10 s), at the address ``AddressGuard`` allows for the running task,
    /// and runs `body` with it; closes it afterwards.
    static func with(
        _ origin: Origin, isolation: isolated (any Actor)? = #isolation, _ body: (OriginConnection) async throws -> Void
    ) async throws {
        let address = try await AddressGuard.shared.address(for: origin.prefix, scope: HTTPFetcher.scope)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(to: try SocketAddress(ipAddress: "\(address)", port: origin.port)) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(IdleStateHandler(readTimeout: readTimeout))
                    try sync.addHandler(SilenceAsError())
                    try sync.addHandler(QuickAcks())
                    try sync.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel, configuration: .init(backPressureStrategy: buffered))
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            try await body(OriginConnection(origin: origin, answers: inbound, requests: outbound))
        }
    }

    /// The request `get(target, headers: headers)` sends.
    private func head(_ target: String, _ headers: HTTPHeaders) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: origin.authority)
        return head
    }

    /// Writes the GETs of `upcoming` (target and headers, in the order they will be asked for) in one write when
    /// ``wantsAhead``; their answers are read by the `get`s that ask for exactly these requests. Returns how many
    /// were written (none when the connection does not pipeline now or the write failed, which ends it).
    @discardableResult
    func sendAhead(_ upcoming: [(target: String, headers: HTTPHeaders)]) async -> Int {
        guard wantsAhead, upcoming.count > 1 else { return 0 }
        ahead = upcoming.prefix(Self.pipelineDepth).map { head($0.target, $0.headers) }
        aheadStart = 0
        do {
            try await requests.write(contentsOf: ahead.flatMap { [.head($0), .end(nil)] })
            return ahead.count
        } catch {
            open = false
            return 0
        }
    }

    /// Sends `GET target` with `headers` (a `Host` header is added), unless it is the request written ahead next,
    /// and returns the answer's head; its body follows through ``nextBody()``. Informational (1xx) answers are
    /// skipped.
    func get(_ target: String, headers: HTTPHeaders) async throws -> HTTPResponseHead {
        guard reusable else { throw ChannelError.ioOnClosedChannel }
        open = false  // until the answer's head says otherwise
        let head = head(target, headers)
        if aheadStart < ahead.count {
            // Answers to other requests come first: this connection cannot carry this one.
            guard ahead[aheadStart] == head else { throw OriginConnectionError.notWrittenAhead }
            aheadStart += 1
        } else {
            try await requests.write(contentsOf: [.head(head), .end(nil)])
        }
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

/// Acknowledges what was read at once rather than after the kernel's delayed-ACK timer (40 ms on Linux). Answers
/// to requests written ahead arrive with no request going the other way to carry the acknowledgement; an origin
/// whose congestion window is full of small answers would wait for it, a stall per window of pipelined answers.
/// Linux forgets the setting, so it is set per read.
private final class QuickAcks: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func channelReadComplete(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(.tcpOption(.init(rawValue: TCP_QUICKACK)), value: 1)
        context.fireChannelReadComplete()
    }
}

/// The errors of an ``OriginConnection`` that are its own.
enum OriginConnectionError: Error {
    /// The origin sent nothing for ``OriginConnection/readTimeout``.
    case readTimeout
    /// A request asked for that is not the one written ahead next (its answer would come after others).
    case notWrittenAhead
}
