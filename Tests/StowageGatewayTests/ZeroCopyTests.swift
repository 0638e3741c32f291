import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import StowagePlayback
import Testing

@testable import StowageGateway

/// The pieces of the fast path without sockets: the slice field, the channel handler that turns it into a file
/// region (in an `EmbeddedChannel`), the stall timeout on a virtual clock, and the playlist cache.
@Suite("Zero-copy serving")
struct ZeroCopyTests {
    @Test func aSliceSurvivesItsFieldValueWhateverThePath() throws {
        for path in ["/a/b.ts", "/titles/x y/seg 1.ts", "/t/100%/é.ts", "/t/a+b;c?.ts"] {
            let slice = FileSlice(path: path, offset: 7, length: 100, size: 1000)
            let value = slice.fieldValue
            #expect(value.allSatisfy { $0.isASCII && $0 != "\r" && $0 != "\n" }, "\(value)")
            #expect(FileSlice(fieldValue: value) == slice)
        }
        for bad in ["", "1 2 3", "x 1 10 /a", "5 10 10 /a", "-1 1 10 /a", "0 0 10 /a"] {
            #expect(FileSlice(fieldValue: bad) == nil, "\(bad)")
        }
    }

    /// A channel with the HTTP/1 encoder and the writer put after it, as ``GatewayChannel`` does, and nothing else.
    func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        try FileRegionWriter.install(in: channel.pipeline.syncOperations)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    func file(_ bytes: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zc-\(UUID().uuidString).ts")
        try Data((0..<bytes).map { UInt8($0 % 251) }).write(to: url)
        return url
    }

    @Test func theSliceFieldBecomesAFileRegionAndNeverLeaves() throws {
        let url = try file(5000)
        defer { try? FileManager.default.removeItem(at: url) }
        let channel = try channel()
        #expect(throws: Never.self) { try channel.pipeline.syncOperations.handler(type: FileRegionWriter.self) }
        var head = HTTPResponseHead(version: .http1_1, status: .partialContent)
        head.headers.add(name: "content-length", value: "1000")
        head.headers.add(
            name: FileSlice.header.rawName,
            value: FileSlice(path: url.path, offset: 10, length: 1000, size: 5000).fieldValue)
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        let headBytes = try #require(try channel.readOutbound(as: IOData.self))
        guard case .byteBuffer(let buffer) = headBytes else {
            Issue.record("head not bytes")
            return
        }
        let text = String(buffer: buffer).lowercased()
        #expect(text.hasPrefix("http/1.1 206") && text.contains("content-length: 1000"))
        #expect(!text.contains("x-stowage-sendfile"), "\(text)")
        let body = try #require(try channel.readOutbound(as: IOData.self))
        guard case .fileRegion(let region) = body else {
            Issue.record("body is not a file region: \(body)")
            return
        }
        #expect(region.readerIndex == 10 && region.endIndex == 1010)
        _ = try channel.finish()
    }

    @Test func aFileThatChangedSizeClosesTheConnectionInsteadOfSendingWrongBytes() throws {
        let url = try file(4000)
        defer { try? FileManager.default.removeItem(at: url) }
        let channel = try channel()
        var head = HTTPResponseHead(version: .http1_1, status: .ok)
        head.headers.add(name: "content-length", value: "5000")
        head.headers.add(
            name: FileSlice.header.rawName,
            value: FileSlice(path: url.path, offset: 0, length: 5000, size: 5000).fieldValue)
        #expect(throws: (any Error).self) { try channel.writeOutbound(HTTPServerResponsePart.head(head)) }
        #expect(!channel.isActive, "the connection is closed")
    }

    @Test func aStalledClientIsCutAfterTheTimeoutAndAReadingOneIsNot() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: StallTimeoutHandler(timeout: .seconds(30)), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        // Reading, slowly: unwritable for 20 s, writable again, unwritable 20 s more: never cut.
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(20))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(20))
        #expect(channel.isActive)
        // Stalled: 30 s without a break.
        loop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive, "cut after 30 s of a full send buffer")
    }

    @Test func playlistsAreRewrittenOncePerVersionAndRewriter() throws {
        let cache = PlaylistCache(capacity: 3)
        var made = 0
        let bearer = PlaylistRewriter(prefix: "/titles/a/"),
            signed = PlaylistRewriter(prefix: "/titles/a/", query: "s=1")
        let v1 = FileStat(isDirectory: false, size: 10, modified: 100)
        for _ in 0..<5 {
            _ = cache.playlist(path: "/p.m3u8", stat: v1, rewriter: bearer) {
                made += 1
                return Data()
            }
        }
        #expect(made == 1, "one rewrite for every bearer request")
        _ = cache.playlist(path: "/p.m3u8", stat: v1, rewriter: signed) {
            made += 1
            return Data()
        }
        #expect(made == 2, "a signed URL's query is its own entry")
        let v2 = FileStat(isDirectory: false, size: 10, modified: 101)
        _ = cache.playlist(path: "/p.m3u8", stat: v2, rewriter: bearer) {
            made += 1
            return Data()
        }
        #expect(made == 3, "a playlist changed on disk is read again")
        _ = cache.playlist(path: "/q.m3u8", stat: v1, rewriter: bearer) {
            made += 1
            return Data()
        }
        #expect(cache.count == 1, "full: dropped, then the new one kept")
    }
}
