import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import StowagePlayback
import StowageProtocol
import Testing

@testable import StowageGateway

@Suite("Title hot path")
struct TitleHotPathTests {
    static let segment = "/titles/tok/video/0001.ts"

    static func request(
        _ path: String = segment, method: HTTPRequest.Method = .get, _ extra: HTTPFields = [:],
        secret: String = "good"
    ) -> HTTPRequest {
        var fields: HTTPFields = [.authorization: "Bearer \(secret)"]
        fields.append(contentsOf: extra)
        return HTTPRequest(method: method, scheme: nil, authority: "box", path: path, headerFields: fields)
    }

    /// A gateway over the test title whose play by device `tv` the router has counted (one segment served).
    static func playing(clock: ManualClock = ManualClock()) async throws -> (Gateway, FakeBackend, URL) {
        let root = try GatewayHTTPTests.titles()
        let backend = FakeBackend()
        let gateway = Gateway(
            configuration: .init(titlesRoot: root), backend: backend, logger: Logger(label: "test"),
            clock: { clock.seconds })
        #expect(gateway.hotAnswer(request()) == nil, "nothing known yet: the router answers")
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        try await app.test(.router) { client in
            try await client.execute(uri: segment, method: .get, headers: [.authorization: "Bearer good"]) {
                #expect($0.status == .ok)
            }
        }
        #expect(backend.plays.withLock { $0 } == 1)
        return (gateway, backend, root)
    }

    @Test func aSegmentOfAPlayUnderWayIsAnsweredByTheSameRules() async throws {
        let (gateway, backend, root) = try await Self.playing()
        defer { try? FileManager.default.removeItem(at: root) }
        let answer = try #require(gateway.hotAnswer(Self.request()), "a counted play's next segment")
        let fields = answer.head.headerFields
        #expect(answer.head.status == .ok)
        #expect(fields[.contentLength] == "1000")
        #expect(fields[.contentType] == "video/mp2t")
        #expect(fields[.acceptRanges] == "bytes")
        #expect(fields[.contentSecurityPolicy] == SecurityHeaders.contentSecurityPolicy)
        let slice = try #require(fields[FileSlice.header].flatMap(FileSlice.init(fieldValue:)))
        #expect(slice.path.hasSuffix("/tok/video/0001.ts") && slice.offset == 0 && slice.length == 1000)
        // Everything else takes the router.
        #expect(gateway.hotAnswer(Self.request(method: .head)) == nil)
        let ranged = try #require(gateway.hotAnswer(Self.request(Self.segment, [.range: "bytes=10-19"])))
        #expect(ranged.head.status == .partialContent)
        #expect(ranged.head.headerFields[.contentRange] == "bytes 10-19/1000")
        #expect(ranged.head.headerFields[.contentLength] == "10")
        #expect(gateway.hotAnswer(Self.request(Self.segment, [.range: "bytes=5000-"])) == nil, "416: the router")
        let stale: HTTPFields = [.range: "bytes=10-19", .ifRange: "\"1-1\""]
        #expect(gateway.hotAnswer(Self.request(Self.segment, stale))?.head.status == .ok, "If-Range stale: whole")
        #expect(gateway.hotAnswer(Self.request(Self.segment, [.origin: "http://tv.lan"])) == nil)
        #expect(gateway.hotAnswer(Self.request(Self.segment + "?dev=tv")) == nil)
        #expect(gateway.hotAnswer(Self.request("/titles/tok/video/index.m3u8")) == nil, "playlists")
        #expect(gateway.hotAnswer(Self.request("/titles/tok/keys/0")) == nil, "keys")
        #expect(gateway.hotAnswer(Self.request("/titles/tok/video/0002.ts")) == nil, "not on disk")
        #expect(gateway.hotAnswer(Self.request("/titles/tok/../tok/video/0001.ts")) == nil)
        #expect(gateway.hotAnswer(Self.request("/titles/nope/video/0001.ts")) == nil, "a title not known")
        #expect(gateway.hotAnswer(Self.request(secret: "bad")) == nil, "a credential not known good")
        #expect(gateway.hotAnswer(Self.request(secret: "peer")) == nil, "a peer is not known either")
        #expect(backend.plays.withLock { $0 } == 1, "never a play")
    }

    @Test func theHotAnswerCarriesTheRoutersFieldsAndTheFile() async throws {
        let (gateway, _, root) = try await Self.playing()
        defer { try? FileManager.default.removeItem(at: root) }
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        let bytes = try Data(contentsOf: root.appendingPathComponent("tok/video/0001.ts"))
        try await app.test(.live) { client in
            let auth: HTTPFields = [.authorization: "Bearer good"]
            // HEAD takes the router; the GET after it is answered on the connection.
            let routed = try await client.execute(uri: Self.segment, method: .head, headers: auth) { $0.headers }
            #expect(gateway.hotAnswer(Self.request()) != nil)
            let before = gateway.traffic.current
            let hot = try await client.execute(uri: Self.segment, method: .get, headers: auth) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == bytes)
                return response.headers
            }
            // Not the router compared with itself: the hot path answered, the router was not asked.
            #expect(gateway.traffic.current == .init(routed: before.routed, hot: before.hot + 1))
            #expect(Set(routed.map(\.name)) == Set(hot.map(\.name)), "the same fields")
            for field in routed where field.name != .date {
                #expect(hot[field.name] == field.value, "\(field.name)")
            }
            // A range: the router's answer (an Origin, not a listed one, sends the request there) and the hot one.
            var range = auth
            range[.range] = "bytes=100-355"
            var routedRange = range
            routedRange[.origin] = "http://elsewhere.lan"
            var answers: [HTTPFields] = []
            let beforeRanges = gateway.traffic.current
            for fields in [routedRange, range] {
                answers.append(
                    try await client.execute(uri: Self.segment, method: .get, headers: fields) { response in
                        #expect(response.status == .partialContent)
                        #expect(Data(buffer: response.body) == bytes[100...355])
                        return response.headers
                    })
            }
            #expect(gateway.traffic.current == .init(routed: beforeRanges.routed + 1, hot: beforeRanges.hot + 1))
            #expect(Set(answers[0].map(\.name)) == Set(answers[1].map(\.name)))
            for field in answers[0] where field.name != .date {
                #expect(answers[1][field.name] == field.value, "\(field.name)")
            }
        }
    }

    /// Live, through the gateway's own connections: what reaches the router is counted where the router answers,
    /// so a hot path missing from the connection shows as the segments counted there.
    @Test func aCountedPlaysLaterSegmentsNeverReachTheRouter() async throws {
        let root = try GatewayHTTPTests.titles()
        defer { try? FileManager.default.removeItem(at: root) }
        let backend = FakeBackend()
        let clock = ManualClock()
        let gateway = Gateway(
            configuration: .init(titlesRoot: root), backend: backend, logger: Logger(label: "test"),
            clock: { clock.seconds })
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        let bytes = try Data(contentsOf: root.appendingPathComponent("tok/video/0001.ts"))
        try await app.test(.live) { client in
            let auth: HTTPFields = [.authorization: "Bearer good"]
            try await client.execute(uri: "/titles/tok/video/index.m3u8", method: .get, headers: auth) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: Self.segment, method: .get, headers: auth) {
                #expect($0.status == .ok && Data(buffer: $0.body) == bytes)
            }
            #expect(gateway.traffic.current == .init(routed: 2, hot: 0), "the playlist and the play's first segment")
            #expect(backend.plays.withLock { $0 } == 1)
            for _ in 0..<3 {
                try await client.execute(uri: Self.segment, method: .get, headers: auth) {
                    #expect($0.status == .ok && Data(buffer: $0.body) == bytes)
                }
            }
            var ranged = auth
            ranged[.range] = "bytes=10-19"
            try await client.execute(uri: Self.segment, method: .get, headers: ranged) {
                #expect($0.status == .partialContent && Data(buffer: $0.body) == bytes[10...19])
            }
            #expect(gateway.traffic.current == .init(routed: 2, hot: 4), "the later segments: none to the router")
            #expect(backend.plays.withLock { $0 } == 1, "one play")
        }
    }

    @Test func aNewPlayOrAFileGoneGoesBackToTheRouter() async throws {
        let clock = ManualClock()
        let (gateway, backend, root) = try await Self.playing(clock: clock)
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(gateway.hotAnswer(Self.request()) != nil)
        // Idle past the session's limit: the credential and the title known again through a playlist, but the
        // next segment is a new play, which only the router counts.
        clock.advance(31)
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        try await app.test(.router) { client in
            let auth: HTTPFields = [.authorization: "Bearer good"]
            try await client.execute(uri: "/titles/tok/video/index.m3u8", method: .get, headers: auth) {
                #expect($0.status == .ok)
            }
            #expect(gateway.hotAnswer(Self.request()) == nil, "a new play's first segment")
            try await client.execute(uri: Self.segment, method: .get, headers: auth) { #expect($0.status == .ok) }
        }
        #expect(backend.plays.withLock { $0 } == 2, "the second play counted")
        #expect(gateway.hotAnswer(Self.request()) != nil)
        try FileManager.default.removeItem(at: root.appendingPathComponent("tok/video/0001.ts"))
        #expect(gateway.hotAnswer(Self.request()) == nil, "a file deleted is not answered here")
    }

    /// A connection with the hot path: a segment request answered on it, a playlist passed on.
    static func channel(_ gateway: Gateway) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: TitleHotPath(gateway: gateway))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    @Test func answersLeaveInTheOrderTheRequestsCame() async throws {
        let (gateway, _, root) = try await Self.playing()
        defer { try? FileManager.default.removeItem(at: root) }
        let channel = try Self.channel(gateway)
        // A playlist goes to the router; the segment pipelined behind it must wait for its answer: passed on too.
        try channel.writeInbound(HTTPRequestPart.head(Self.request("/titles/tok/video/index.m3u8")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(HTTPRequestPart.head(Self.request()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        var passed: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { passed.append(part) }
        #expect(passed.count == 4, "both requests passed on")
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil, "nothing answered here")
        // The router answers both; the next segment is answered on the connection.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        try channel.writeInbound(HTTPRequestPart.head(Self.request()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil, "not passed on")
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer head")
            return
        }
        #expect(head.status == .ok && head.headerFields[FileSlice.header] != nil)
        guard case .end = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer end")
            return
        }
    }
}
