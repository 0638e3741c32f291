import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small HTTP origin for the fetcher's tests whose answers are chosen by path, and which counts the
/// connections it accepted and the requests each carried:
/// - `/file/<name>`: 200, a body made from the name (``body(for:)``), kept alive;
/// - `/closing/<name>`: the same with `Connection: close`;
/// - `/dropping/<name>`: the same, kept alive in words, then the connection is closed without a word;
/// - `/chunked/<name>`: the same body, chunked, no length;
/// - `/moved/<name>`: 302 to `/file/<name>`;
/// - `/cut/<name>`: promises the whole body, sends 100 bytes and closes;
/// - `/to/<percent-encoded URL>`: 302 to that URL (anywhere);
/// - `/drip/<name>`: promises the whole body, then sends it one byte every 100 ms (a peer that drips);
/// - anything else: 404.
///
/// It remembers the paths of the requests that carried an `Authorization` or `Cookie` header.
///
/// It also counts the socket reads that brought more than one request (a client pipelining its GETs).
final class ScriptedOrigin: Sendable {
    private let channel: Channel
    let port: Int
    private let counts = Mutex<(connections: Int, requests: Int, readsOfSeveral: Int)>((0, 0, 0))
    private let credentialed = Mutex<[String]>([])
    /// The address it listens on.
    let host: String

    /// Paths of the requests that carried a credential header, in order.
    var pathsWithCredentials: [String] { credentialed.withLock { $0 } }

    var connections: Int { counts.withLock { $0.connections } }
    var requests: Int { counts.withLock { $0.requests } }
    /// Socket reads that held the starts of two requests or more.
    var readsOfSeveralRequests: Int { counts.withLock { $0.readsOfSeveral } }

    /// Listens on `host` (an address on this machine: any 127.x.y.z is).
    init(host: String = "127.0.0.1") async throws {
        let holder = Holder()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                holder.origin?.counts.withLock { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RequestReads(origin: holder))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Answerer(origin: holder))
                }
            }
            .bind(host: host, port: 0).get()
        self.channel = channel
        self.host = host
        port = channel.localAddress?.port ?? 0
        holder.origin = self
    }

    func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    func stop() async { try? await channel.close() }

    /// The body served for `name`: its size is the number in the name (`a-5000` is 5,000 bytes).
    static func body(for name: String) -> [UInt8] {
        let size = Int(name.split(separator: "-").last ?? "") ?? 1000
        return (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ name.utf8.count) }
    }

    fileprivate func counted(_ request: HTTPRequestHead) {
        counts.withLock { $0.requests += 1 }
        if request.headers.contains(name: "Authorization") || request.headers.contains(name: "Cookie") {
            credentialed.withLock { $0.append(request.uri) }
        }
    }
    fileprivate func countedReadOfSeveral() { counts.withLock { $0.readsOfSeveral += 1 } }
}

/// Before the HTTP decoder: counts the reads that carry the starts of several requests ("GET " after a line end).
private final class RequestReads: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let origin: Holder

    init(origin: Holder) { self.origin = origin }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        let get = Array("\r\nGET ".utf8)
        let starts =
            bytes.count < get.count
            ? 0
            : (0...(bytes.count - get.count)).filter {
                bytes[$0..<($0 + get.count)].elementsEqual(get)
            }.count
        if starts >= 1 { origin.origin?.countedReadOfSeveral() }
        context.fireChannelRead(data)
    }
}

/// Set once the server is bound; read by connections (it outlives them).
private final class Holder: @unchecked Sendable {
    // Written once before the first connection can be accepted, then only read.
    var origin: ScriptedOrigin?
}

private final class Answerer: ChannelInboundHandler, @unchecked Sendable {
    // One instance per connection, used on its event loop only.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let origin: Holder
    /// This connection is being closed: requests that came after (pipelined) are not answered.
    var ending = false

    init(origin: Holder) { self.origin = origin }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let request) = unwrapInboundIn(data), !ending else { return }
        origin.origin?.counted(request)
        let parts = request.uri.split(separator: "/").map(String.init)
        let (kind, name) = parts.count == 2 ? (parts[0], parts[1]) : ("", "")
        let body = ScriptedOrigin.body(for: name)
        var headers = HTTPHeaders()
        var status = HTTPResponseStatus.ok
        switch kind {
        case "file", "dropping", "cut", "drip": headers.add(name: "Content-Length", value: "\(body.count)")
        case "closing":
            headers.add(name: "Content-Length", value: "\(body.count)")
            headers.add(name: "Connection", value: "close")
        case "chunked": headers.add(name: "Transfer-Encoding", value: "chunked")
        case "moved":
            status = .found
            headers.add(name: "Location", value: "/file/\(name)")
            headers.add(name: "Content-Length", value: "0")
        case "to":
            status = .found
            headers.add(name: "Location", value: name.removingPercentEncoding ?? name)
            headers.add(name: "Content-Length", value: "0")
        default:
            status = .notFound
            headers.add(name: "Content-Length", value: "0")
        }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if kind == "drip" {
            context.flush()
            Self.drip(body[...], on: context.channel)
            return
        }
        if status == .ok {
            let sent = kind == "cut" ? Array(body.prefix(100)) : body
            for piece in stride(from: 0, to: sent.count, by: 1500) {
                let chunk = context.channel.allocator.buffer(bytes: sent[piece..<min(piece + 1500, sent.count)])
                context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
            }
        }
        ending = ["cut", "closing", "dropping"].contains(kind)
        if kind == "cut" {
            context.flush()
            context.close(promise: nil)
            return
        }
        let end = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if kind == "closing" || kind == "dropping" {
            let channel = context.channel
            end.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Sends `rest` one byte every 100 ms, then the end of the answer; stops when the client hung up.
    static func drip(_ rest: ArraySlice<UInt8>, on channel: Channel) {
        channel.eventLoop.scheduleTask(in: .milliseconds(100)) {
            guard channel.isActive else { return }
            guard let byte = rest.first else {
                channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
                return
            }
            let buffer = channel.allocator.buffer(bytes: [byte])
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
            drip(rest.dropFirst(), on: channel)
        }
    }
}
