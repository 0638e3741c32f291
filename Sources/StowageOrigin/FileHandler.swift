import Foundation
import NIOCore
import NIOHTTP1
import StowageDASH

/// Answers GET / HEAD for files under the origin's root, with `Range: bytes=a-b` support.
final class FileHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: OriginServer
    private var head: HTTPRequestHead?
    private var body = Data()
    private var servedBytes = 0

    private var serving = false
    private var servingTitle: String?

    init(server: OriginServer) { self.server = server }

    func channelActive(context: ChannelHandlerContext) {
        server.stats.connectionOpened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.stats.connectionClosed()
        ended()
        context.fireChannelInactive()
    }

    /// The request being served ended (answered, or its connection closed).
    private func ended() {
        if serving { server.stats.requestEnded(title: servingTitle) }
        serving = false
        servingTitle = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.removeAll(keepingCapacity: true)
        case .body(var chunk):
            if body.count < 1 << 20, let bytes = chunk.readBytes(length: chunk.readableBytes) {
                body.append(contentsOf: bytes)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            if head.method == .POST, let licenses = server.licenses,
                head.uri.hasPrefix("/license") || (head.uri.split(separator: "?").first ?? "").hasSuffix("/clearkey")
            {
                let clearKey = (head.uri.split(separator: "?").first ?? "").hasSuffix("/clearkey")
                let (code, answer, delay) =
                    clearKey ? licenses.clearKey(body: body) : licenses.answer(uri: head.uri, body: body)
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: code == 200 ? "application/json" : "text/plain")
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) {
                    self.send(
                        bound.value, head, status: HTTPResponseStatus(statusCode: code), body: answer, headers: headers)
                }
                return
            }
            if head.uri == "/__stats" {
                let body = (try? JSONEncoder().encode(server.stats.snapshot)) ?? Data()
                return send(context, head, status: .ok, body: body)
            }
            ended()
            serving = true
            servingTitle = OriginStats.title(of: head.uri)
            server.stats.requestStarted(title: servingTitle)
            if let refusal = server.signer?.refusal(for: head.uri) {
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: "text/plain")
                return send(context, head, status: .forbidden, body: Data((refusal + "\n").utf8), headers: headers)
            }
            if let fault = server.faults.draw(for: head.uri) {
                server.stats.fault(fault.rawValue)
                let now = Date().timeIntervalSince1970
                server.log?.record(
                    "\(now) \(head.method.rawValue) \(head.uri) FAULT-\(fault.rawValue) 0 "
                        + AccessLog.conditionFields(head))
                switch fault {
                case .reset:
                    return context.close(promise: nil)
                case .truncate:
                    return truncate(context, head)
                case .unavailable:
                    var headers = HTTPHeaders()
                    headers.add(name: "Retry-After", value: "1")
                    return send(
                        context, head, status: .serviceUnavailable, body: Data("try again\n".utf8), headers: headers,
                        logged: false)
                case .stall:
                    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                    context.eventLoop.scheduleTask(in: .seconds(3)) { self.respond(bound.value, head) }
                    return
                }
            }
            let delay = server.options.latencyMilliseconds
            if delay > 0 {
                let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) {
                    self.respond(loopContext.value, head)
                }
            } else {
                respond(context, head)
            }
        }
    }

    private func respond(_ context: ChannelHandlerContext, _ request: HTTPRequestHead) {
        guard request.method == .GET || request.method == .HEAD else {
            return send(context, request, status: .methodNotAllowed, body: Data("only GET and HEAD\n".utf8))
        }
        if let provider = server.keyProvider, request.uri.hasPrefix("/keys/") {
            return serveKey(context, request, provider)
        }
        if let live = server.live, request.uri.hasPrefix(LiveStream.keyPrefix) {
            return serveLiveKey(context, request, live)
        }
        if let live = server.live, request.uri.split(separator: "?").first == Substring(LiveStream.timePath) {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain")
            headers.add(name: "Cache-Control", value: "no-store")
            return send(
                context, request, status: .ok, body: Data(XSDateTime.format(live.originNow).utf8), headers: headers)
        }
        if let location = server.options.redirects[
            request.uri.split(separator: "?").first.map(String.init) ?? request.uri]
        {
            var headers = HTTPHeaders()
            headers.add(name: "Location", value: location)
            return send(context, request, status: .found, body: Data(), headers: headers)
        }
        if let reason = server.refused {
            return send(context, request, status: .forbidden, body: Data((reason + "\n").utf8))
        }
        let path = request.uri.split(separator: "?").first.map(String.init) ?? request.uri
        guard let url = server.file(for: request.uri), let data = try? Data(contentsOf: url, options: .mappedIfSafe)
        else {
            if let provider = server.contentProvider, server.file(for: request.uri) != nil {
                return serveProvided(context, request, path: path, provider)
            }
            return send(context, request, status: .notFound, body: Data("not found\n".utf8))
        }
        if let licenses = server.licenses, let (code, answer, _) = licenses.keyDelivery(path: path, uri: request.uri) {
            return send(context, request, status: HTTPResponseStatus(statusCode: code), body: answer)
        }
        var body = data, dynamic = false
        if let live = server.live {
            switch live.answer(path: path, data: data) {
            case .asIs: break
            case .playlist(let text): (body, dynamic) = (Data(text.utf8), true)
            case .segment(let encrypted): body = encrypted
            case .gone(let reason): return send(context, request, status: .notFound, body: Data((reason + "\n").utf8))
            case .failed(let reason):
                return send(context, request, status: .internalServerError, body: Data((reason + "\n").utf8))
            }
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        let modified = (attributes?[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
        serveData(
            context, request, path: path, data: body, modified: modified,
            contentType: Self.contentType(url.pathExtension), dynamic: dynamic)
    }

    /// A file that is not on disk, from the content provider (off the event loop, like keys).
    private func serveProvided(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, path: String,
        _ provider: @escaping OriginServer.ContentProvider
    ) {
        let loop = context.eventLoop
        let bound = NIOLoopBound(context, eventLoop: loop)
        let decoded = path.removingPercentEncoding ?? path
        DispatchQueue.global().async {
            let answer = provider(decoded)
            loop.execute {
                switch answer {
                case nil:
                    self.send(bound.value, request, status: .notFound, body: Data("not found\n".utf8))
                case .success(let data)?:
                    let ext = (decoded as NSString).pathExtension
                    self.serveData(
                        bound.value, request, path: path, data: data, modified: Date(timeIntervalSince1970: 0),
                        contentType: Self.contentType(ext))
                case .failure(let refusal)?:
                    self.send(bound.value, request, status: .badGateway, body: Data((refusal.reason + "\n").utf8))
                }
            }
        }
    }

    /// Answers with `data` (whole, or the requested range), and reports what was served.
    private func serveData(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, path: String, data: Data, modified: Date,
        contentType: String, dynamic: Bool = false
    ) {
        var data = data
        // Signed playlists differ on every request: served whole, never from a cache.
        let signed = server.signer != nil && path.lowercased().hasSuffix(".m3u8")
        if let signer = server.signer, signed {
            let text = signer.sign(
                playlist: String(decoding: data, as: UTF8.self), at: path,
                host: request.headers.first(name: "Host"))
            data = Data(text.utf8)
        }
        defer { if request.method == .GET { server.onServed?(path, servedBytes, data.count) } }
        servedBytes = data.count
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        // Live playlists change with time too.
        let whole = signed || dynamic
        if whole { headers.add(name: "Cache-Control", value: "no-store") }
        headers.add(name: "Accept-Ranges", value: "bytes")
        let etag = "\"\(data.count)-\(Int(modified.timeIntervalSince1970))\""
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Last-Modified", value: Self.httpDate(modified))
        // If-Range: the range only if the validator still matches, else the whole (changed) file.
        let ifRange = request.headers.first(name: "If-Range")
        let rangeApplies = ifRange == nil || ifRange == etag || ifRange == Self.httpDate(modified)
        if rangeApplies, !whole, let range = request.headers.first(name: "Range") {
            guard let (start, end) = Self.parseRange(range, size: data.count) else {
                headers.add(name: "Content-Range", value: "bytes */\(data.count)")
                servedBytes = 0
                return send(context, request, status: .rangeNotSatisfiable, body: Data(), headers: headers)
            }
            headers.add(name: "Content-Range", value: "bytes \(start)-\(end)/\(data.count)")
            servedBytes = end - start + 1
            return send(context, request, status: .partialContent, body: data[start...end], headers: headers)
        }
        send(context, request, status: .ok, body: data, headers: headers)
    }

    /// Promises the whole file, sends half of it, and closes: a truncated body.
    private func truncate(_ context: ChannelHandlerContext, _ request: HTTPRequestHead) {
        guard let url = server.file(for: request.uri), var data = try? Data(contentsOf: url, options: .mappedIfSafe)
        else {
            return send(context, request, status: .notFound, body: Data("not found\n".utf8))
        }
        let path = request.uri.split(separator: "?").first.map(String.init) ?? ""
        if case .segment(let encrypted) = server.live?.answer(path: path, data: data) {
            data = encrypted
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(data.count)")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))),
            promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: data.count / 2)
        buffer.writeBytes(data.prefix(data.count / 2))
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func send(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, status: HTTPResponseStatus, body: Data,
        headers: HTTPHeaders = HTTPHeaders(), logged: Bool = true
    ) {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
        let keepAlive = request.isKeepAlive
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
            promise: nil)
        if logged {
            let now = Date().timeIntervalSince1970, sent = request.method == .HEAD ? 0 : body.count
            server.log?.record(
                "\(now) \(request.method.rawValue) \(request.uri) \(status.code) \(sent) "
                    + AccessLog.conditionFields(request))
        }
        let rate = server.options.throttleBytesPerSecond
        if rate > 0 && request.method != .HEAD && !body.isEmpty {
            context.flush()
            sendThrottled(context, body[...], rate: rate, keepAlive: keepAlive)
            return
        }
        if request.method != .HEAD && !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        finish(context, keepAlive: keepAlive)
    }

    private func finish(_ context: ChannelHandlerContext, keepAlive: Bool) {
        ended()
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Sends the body in 16 KiB chunks paced to `rate` bytes/s (a slow origin, for tests and demos).
    private func sendThrottled(_ context: ChannelHandlerContext, _ rest: Data.SubSequence, rate: Int, keepAlive: Bool) {
        guard context.channel.isActive else { return }
        let chunk = rest.prefix(16 * 1024)
        var buffer = context.channel.allocator.buffer(capacity: chunk.count)
        buffer.writeBytes(chunk)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let remaining = rest.dropFirst(chunk.count)
        if remaining.isEmpty { return finish(context, keepAlive: keepAlive) }
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let delay = Int64(chunk.count) * 1_000_000 / Int64(rate)
        context.eventLoop.scheduleTask(in: .microseconds(delay)) {
            self.sendThrottled(bound.value, remaining, rate: rate, keepAlive: keepAlive)
        }
    }

    /// Asks the key provider off the event loop (it talks to the scheduler), then answers on it.
    private func serveKey(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ provider: @escaping OriginServer.KeyProvider
    ) {
        let path = request.uri.split(separator: "?").first.map(String.init) ?? ""
        guard let index = Int(path.dropFirst("/keys/".count)), index >= 0 else {
            return send(context, request, status: .notFound, body: Data("no such key\n".utf8))
        }
        let loop = context.eventLoop
        let bound = NIOLoopBound(context, eventLoop: loop)
        DispatchQueue.global().async {
            let result = provider(index)
            loop.execute {
                var headers = HTTPHeaders()
                headers.add(name: "Cache-Control", value: "no-store")
                switch result {
                case .success(let key):
                    headers.add(name: "Content-Type", value: "application/octet-stream")
                    self.send(bound.value, request, status: .ok, body: Data(key), headers: headers)
                case .failure(let refusal):
                    self.send(
                        bound.value, request, status: .forbidden, body: Data((refusal.reason + "\n").utf8),
                        headers: headers)
                }
            }
        }
    }

    /// Answers `/live-keys/<k>`: rotation key `k` of `--live-key-every`.
    private func serveLiveKey(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ live: LiveStream) {
        let path = request.uri.split(separator: "?").first.map(String.init) ?? ""
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "no-store")
        guard let index = Int(path.dropFirst(LiveStream.keyPrefix.count)), let key = live.key(index) else {
            return send(context, request, status: .notFound, body: Data("no such key\n".utf8), headers: headers)
        }
        headers.add(name: "Content-Type", value: "application/octet-stream")
        send(context, request, status: .ok, body: Data(key), headers: headers)
    }

    /// `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range only).
    static func parseRange(_ header: String, size: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let a = spec[..<dash], b = spec[spec.index(after: dash)...]
        if a.isEmpty {
            guard let n = Int(b), n > 0 else { return nil }
            return (max(0, size - n), size - 1)
        }
        guard let start = Int(a), start < size else { return nil }
        let end = b.isEmpty ? size - 1 : min(Int(b) ?? -1, size - 1)
        return end >= start ? (start, end) : nil
    }

    static func contentType(_ ext: String) -> String {
        switch ext.lowercased() {
        case "m3u8": "application/vnd.apple.mpegurl"
        case "ts": "video/mp2t"
        case "mp4", "m4s": "video/mp4"
        case "m4a": "audio/mp4"
        case "aac": "audio/aac"
        case "vtt", "webvtt": "text/vtt"
        case "key": "application/octet-stream"
        default: "application/octet-stream"
        }
    }

    static func httpDate(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f.string(from: date)
    }
}
