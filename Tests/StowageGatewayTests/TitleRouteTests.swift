import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import StowageGateway

/// The one classifier of `/titles/` paths (what the router dispatches on and the hot path asks), the router's
/// middleware as the list the hot path follows, and the connection that cannot lose the hot path unnoticed.
@Suite("Title routes")
struct TitleRouteTests {
    @Test func eachEndpointUnderATitleIsClassifiedWithItsParameters() {
        let cases: [(HTTPRequest.Method, String, TitleRoute.Endpoint)] = [
            (.get, "/titles/tok", .entry),
            (.get, "/titles/tok/", .entry),
            (.post, "/titles/tok/clearkey", .clearKey),
            (.get, "/titles/tok/clearkey", .file(relative: "clearkey")),
            (.get, "/titles/tok/manifest.json", .peerManifest),
            (.get, "/titles/tok/keys/3", .contentKey(index: 3)),
            (.get, "/titles/tok/keys/x", .invalid(.keyIndex)),
            (.get, "/titles/tok/keys/-1", .invalid(.keyIndex)),
            (.get, "/titles/tok/keys/0/x", .invalid(.keyIndex)),
            (.get, "/titles/tok/video/0001.ts", .file(relative: "video/0001.ts")),
            (.get, "/titles/tok/video//0001.ts", .file(relative: "video/0001.ts")),
            (.get, "/titles/tok/poster%20big.jpg", .file(relative: "poster big.jpg")),
            (.get, "/titles/tok/../other/0001.ts", .invalid(.outsideFolder)),
            (.get, "/titles/tok/video%2F0001.ts", .invalid(.outsideFolder)),
            (.get, "/titles/tok//", .invalid(.outsideFolder)),
        ]
        for (method, path, endpoint) in cases {
            let route = TitleRoute(method: method, path: path)
            #expect(route.endpoint == endpoint, "\(method) \(path)")
            #expect(route.key == "tok" && route.rawKey == "tok", "\(path)")
        }
    }

    @Test func aKeyIsDecodedOnceAndOneThatCanNameNoTitleIsNone() {
        let spaced = TitleRoute(method: .get, path: "/titles/my%20movie/master.m3u8")
        #expect(spaced.key == "my movie" && spaced.rawKey == "my%20movie")
        #expect(spaced.endpoint == .file(relative: "master.m3u8"))
        for path in ["/titles/%2e%2e/master.m3u8", "/titles//master.m3u8", "/titles/%zz/x", "/titles/a%2F..%2Fb/x"] {
            #expect(TitleRoute(method: .get, path: path).key == nil, "\(path)")
        }
    }

    @Test func onlyAClearKeyLicenseTakesPost() {
        let license = TitleRoute(method: .post, path: "/titles/tok/clearkey")
        #expect(license.methodRefusal(.post) == nil)
        for method in [HTTPRequest.Method.get, .head] {
            let file = TitleRoute(method: method, path: "/titles/tok/video/0001.ts")
            #expect(file.methodRefusal(method) == nil)
        }
        let posted = TitleRoute(method: .post, path: "/titles/tok/video/0001.ts")
        #expect(posted.methodRefusal(.post)?.status == .methodNotAllowed)
    }

    /// Hummingbird keeps a router's middleware in a list of its own; whatever is in it the hot path must follow.
    @Test func theRouterHoldsOnlyMiddlewareTheHotPathFollows() throws {
        let gateway = Self.gateway()
        for zeroCopy in [false, true] {
            let router = gateway.router(zeroCopy: zeroCopy)
            let group = Mirror(reflecting: router.middlewares).children.first { $0.label == "middlewares" }?.value
            let installed = try #require(group as? [Any], "the router's middleware list, as Hummingbird keeps it")
            #expect(installed.count == gateway.hotPathStages.count)
            for middleware in installed {
                #expect(middleware is any HotPathStage, "\(type(of: middleware)) does nothing on the hot path")
            }
            let names = { (list: [Any]) in list.map { String(describing: type(of: $0)) } }
            #expect(names(installed) == names(gateway.hotPathStages), "the hot path follows them in the same order")
        }
    }

    @Test func aConnectionThatCannotTakeTheHotPathIsRefusedNamingWhatIsMissing() throws {
        let gateway = Self.gateway()
        let bare = EmbeddedChannel()
        #expect {
            try GatewayChannel.complete(bare.pipeline.syncOperations, gateway: gateway)
        } throws: { error in
            "\(error)".contains("no HTTP/1 response encoder")
        }
        let noState = EmbeddedChannel()
        try noState.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        #expect {
            try GatewayChannel.complete(noState.pipeline.syncOperations, gateway: gateway)
        } throws: { error in
            "\(error)".contains("no Hummingbird connection state handler")
        }
        let whole = EmbeddedChannel()
        try whole.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        try whole.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(logger: Logger(label: "test")))
        try GatewayChannel.complete(whole.pipeline.syncOperations, gateway: gateway)
        #expect(throws: Never.self) { try whole.pipeline.syncOperations.handler(type: FileRegionWriter.self) }
        #expect(throws: Never.self) { try whole.pipeline.syncOperations.handler(type: TitleHotPath.self) }
    }

    static func gateway() -> Gateway {
        Gateway(
            configuration: .init(titlesRoot: URL(fileURLWithPath: "/nonexistent"), corsOrigins: ["http://tv.lan"]),
            backend: FakeBackend(), logger: Logger(label: "test"), clock: { 0 })
    }
}
