import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StowageProtocol
import Testing

@testable import StowageGateway

/// A peer box's credential (`devices add --peer`): it gets a title's manifest and files, never a play or a key; an
/// ordinary device gets 403 `forbidden` on the manifest.
@Suite("Gateway for peer boxes")
struct GatewayPeerTests {
    @Test func manifestIsForPeersAndTheirFetchesAreNoPlays() async throws {
        let root = try GatewayHTTPTests.titles()
        defer { try? FileManager.default.removeItem(at: root) }
        let backend = FakeBackend()
        let gateway = Gateway(
            configuration: .init(titlesRoot: root, adminSecret: "admin-secret"), backend: backend,
            logger: Logger(label: "test"), clock: { 0 })
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        let device: HTTPFields = [.authorization: "Bearer good"]
        let peer: HTTPFields = [.authorization: "Bearer peer"]
        try await app.test(.live) { client in
            try await client.execute(uri: "/titles/movie/manifest.json", method: .get, headers: device) { response in
                #expect(response.status == .forbidden)
                let body = String(buffer: response.body)
                #expect(body.contains("\"code\":\"forbidden\""), "\(body)")
                #expect(body.contains("\"message\""))
            }
            try await client.execute(uri: "/titles/movie/manifest.json", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/titles/movie/manifest.json", method: .get, headers: peer) { response in
                #expect(response.status == .ok)
                let manifest = try JSONDecoder().decode(PeerManifest.self, from: Data(buffer: response.body))
                #expect(manifest.files.map(\.planned.localPath) == ["video/0001.ts"])
                #expect(manifest.source == "https://cdn.example/movie/master.m3u8")
            }
            try await client.execute(uri: "/titles/movie/video/0001.ts", method: .get, headers: peer) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 1000)
            }
            try await client.execute(uri: "/titles/movie/video/0002.ts", method: .get, headers: peer) { response in
                #expect(response.status == .notFound, "a file the box lacks: the peer takes it from the origin")
            }
            try await client.execute(uri: "/titles/movie/keys/0", method: .get, headers: peer) { response in
                #expect(response.status == .forbidden, "a peer licenses its own keys")
            }
            #expect(backend.plays.withLock { $0 } == 0, "a peer's fetches are never plays")
            try await client.execute(uri: "/titles/movie/video/0001.ts", method: .get, headers: device) { response in
                #expect(response.status == .ok)
            }
            #expect(backend.plays.withLock { $0 } == 1, "a device's fetch of media is")
        }
    }
}
