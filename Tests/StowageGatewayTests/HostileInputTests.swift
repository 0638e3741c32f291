import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StowagePlayback
import StowageProtocol
import Testing

@testable import StowageGateway

/// The gateway's rules against hostile input (issue #40), each on the router and the hot path alike: no host
/// path shown, a capped number of event streams per credential, and plays of a title no longer playable stopped.
@Suite("Gateway hostile input")
struct HostileInputTests {
    @Test func theLibraryShowsNoHostPath() async throws {
        let root = try GatewayHTTPTests.titles()
        let home = root.deletingLastPathComponent().path
        let backend = FakeBackend(
            localPlaylist: root.appendingPathComponent("tok/master.m3u8").path,
            error: TitleError(code: .io, message: "cannot write \(root.path)/tok/video/0002.ts: no space"))
        let gateway = Gateway(
            configuration: .init(titlesRoot: root), backend: backend, logger: Logger(label: "test"), clock: { 0 })
        defer { try? FileManager.default.removeItem(at: root) }
        let entry = gateway.entry(try await backend.status(token: "tok"))
        #expect(entry.status.localPlaylist == "/titles/tok/master.m3u8" && entry.entry == "/titles/tok/master.m3u8")
        #expect(
            entry.status.error?.message
                == "cannot write $STOWAGE_HOME/\(root.lastPathComponent)/tok/video/0002.ts: no space")
        let app = Application(router: gateway.router(context: AddressedContext.self))
        try await app.test(.router) { client in
            for path in ["/api/titles", "/"] {
                try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer good"]) {
                    #expect($0.status == .ok)
                    let body = String(buffer: $0.body)
                    #expect(!body.contains(home), "\(path) shows the host's path: \(body)")
                }
            }
        }
    }

    @Test func eventStreamsPerCredentialAreCapped() throws {
        let places = EventStreamPlaces()
        let tv = Principal.device("tv")
        var held = try (0..<EventStreamPlaces.perCredential).map { _ in try places.take(tv) }
        #expect(throws: GatewayError.self) { try places.take(tv) }
        do {
            _ = try places.take(tv)
        } catch let error as GatewayError {
            #expect(error.status == .tooManyRequests && error.code == .refused)
            #expect(error.message.contains("\(EventStreamPlaces.perCredential) event streams"), "\(error.message)")
        }
        // Others count apart, the admin from a device named `admin` too.
        _ = try places.take(.device("phone"))
        _ = try places.take(.device("admin"))
        #expect(places.held(by: .admin) == 0)
        // A place given back (twice: once only) makes room for one stream, not two.
        let closed = held.removeFirst()
        closed.release()
        closed.release()
        #expect(places.held(by: tv) == EventStreamPlaces.perCredential - 1)
        held.append(try places.take(tv))
        #expect(throws: GatewayError.self) { try places.take(tv) }
    }

    @Test func aTitleNoLongerPlayableStopsItsPlaysOnBothPaths() async throws {
        let clock = ManualClock()
        let (gateway, backend, root) = try await TitleHotPathTests.playing(clock: clock)
        defer { try? FileManager.default.removeItem(at: root) }
        let segment = TitleHotPathTests.request()
        #expect(gateway.hotAnswer(segment) != nil, "a play under way takes the hot path")
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        let auth: HTTPFields = [.authorization: "Bearer good"]

        // Plays used up, or a title still downloading: the play under way goes on.
        for reason in [NotPlayableReason(.licenseUsedUp, "all 1 plays are used"), .notDownloaded] {
            backend.unplayable.withLock { $0 = reason }
            await gateway.plays.stopUnplayable(now: clock.seconds)
            #expect(gateway.hotAnswer(segment) != nil, "\(reason.code) goes on")
        }
        // Moved away: refused on the hot path and the router at once, with the reason.
        let moved = NotPlayableReason(.transferred, "the license was moved to box b with `stowctl export --move`")
        backend.unplayable.withLock { $0 = moved }
        await gateway.plays.stopUnplayable(now: clock.seconds)
        #expect(gateway.hotAnswer(segment) == nil, "the hot path stops serving a title moved away")
        try await app.test(.router) { client in
            try await client.execute(uri: TitleHotPathTests.segment, method: .get, headers: auth) {
                #expect($0.status == .forbidden)
                #expect(String(buffer: $0.body).contains("export --move"))
            }
        }
        // Playable again (imported back, renewed): the next request is a new play, counted and served.
        backend.unplayable.withLock { $0 = nil }
        await gateway.plays.stopUnplayable(now: clock.seconds)
        try await app.test(.router) { client in
            try await client.execute(uri: TitleHotPathTests.segment, method: .get, headers: auth) {
                #expect($0.status == .ok)
            }
        }
        #expect(backend.plays.withLock { $0 } == 2, "a new play counted")
        #expect(gateway.hotAnswer(segment) != nil)
        // Deleted: its plays end.
        backend.deleted.withLock { $0 = true }
        await gateway.plays.stopUnplayable(now: clock.seconds)
        #expect(gateway.hotAnswer(segment) == nil, "the hot path stops serving a deleted title")
    }
}
