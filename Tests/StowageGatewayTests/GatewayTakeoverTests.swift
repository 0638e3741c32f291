import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StowageProtocol
import Synchronization
import Testing

@testable import StowageGateway

/// The gateway while no scheduler answers (a takeover, issue #45): a play under way goes on from what the gateway
/// holds (the device's credential, the title's status, files on disk) for at most the outage's hold; the play time
/// served meanwhile is kept with its report id and sent again until a scheduler takes it, once.
@Suite("Gateway across a takeover")
struct GatewayTakeoverTests {
    @Test func aPlayGoesOnWhileNoSchedulerAnswersAndItsPlayTimeIsReportedOnce() async throws {
        let root = try GatewayHTTPTests.titles()
        defer { try? FileManager.default.removeItem(at: root) }
        let backend = FakeBackend()
        let now = Mutex(100.0)
        let gateway = Gateway(
            configuration: .init(titlesRoot: root, adminSecret: "admin-secret", sessionIdleSeconds: 120),
            backend: backend, logger: Logger(label: "test"), clock: { now.withLock { $0 } })
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        let auth: HTTPFields = [.authorization: "Bearer good"]
        let segment = "/titles/tok/video/0001.ts"
        try await app.test(.live) { client in
            try await client.execute(uri: segment, method: .get, headers: auth) { #expect($0.status == .ok) }
            #expect(backend.plays.withLock { $0 } == 1)
            // The scheduler goes silent; the credential (1 s) and the title (3 s) are past their own lives.
            backend.silent.withLock { $0 = true }
            now.withLock { $0 += 20 }
            try await client.execute(uri: segment, method: .get, headers: auth) { response in
                #expect(response.status == .ok, "the play goes on from what the gateway holds")
            }
            await gateway.plays.report(now: now.withLock { $0 })
            let waiting = gateway.plays.reportsWaiting
            #expect(waiting.count == 1 && waiting.first?.seconds == 8, "two whole 4 s segments, kept: \(waiting)")
            await gateway.plays.report(now: now.withLock { $0 })
            #expect(gateway.plays.reportsWaiting == waiting, "still waiting, with the same id")
            // Past the hold, nothing held is served any more.
            now.withLock { $0 += 61 }
            try await client.execute(uri: segment, method: .get, headers: auth) { response in
                #expect(response.status == .serviceUnavailable, "\(String(buffer: response.body))")
            }
            // A leader answers again: the report goes, once, with its id.
            backend.silent.withLock { $0 = false }
            await gateway.plays.report(now: now.withLock { $0 })
            #expect(gateway.plays.reportsWaiting.isEmpty)
            #expect(backend.reports.withLock { $0.map(\.id) } == waiting.map(\.id))
            try await client.execute(uri: segment, method: .get, headers: auth) { #expect($0.status == .ok) }
        }
    }

    @Test func reportsAreKeptOldestFirstWithinTheirLimit() {
        var reports = PlayReports(limit: 2)
        #expect(reports.add(.init(id: "1", token: "a", seconds: 1)) == nil)
        #expect(reports.add(.init(id: "2", token: "a", seconds: 2)) == nil)
        #expect(reports.add(.init(id: "3", token: "b", seconds: 3))?.id == "1", "the oldest goes past the limit")
        reports.settled("2")
        #expect(reports.waiting.map(\.id) == ["3"])
    }
}
