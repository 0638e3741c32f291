import Foundation
import Logging
import StowageProtocol
import Testing

@testable import StowageFetch

/// Every fetch connects only to an address the title's scope allows, judged after name resolution and again
/// after each redirect; submitted credentials go only to the title's own hosts.
@Suite("Address policy and header hosts", .serialized)
struct AddressPolicyTests {
    static let fetcher = HTTPFetcher(logger: Logger(label: "test"))
    var fetcher: HTTPFetcher { Self.fetcher }

    /// A title from a public source (as if its playlist came from the internet).
    let publicTitle = FetchScope(reach: .public, source: "http://93.184.216.34/master.m3u8")

    func fetch(_ url: String, _ scope: FetchScope, headers: [Header] = []) async -> Result<[UInt8], TaskFailure> {
        await HTTPFetcher.$scope.withValue(scope) {
            do throws(TaskFailure) {
                return .success(try await fetcher.fetchBytes(url, headers: headers).bytes)
            } catch {
                return .failure(error)
            }
        }
    }

    func refusal(_ result: Result<[UInt8], TaskFailure>) -> TaskFailure? {
        if case .failure(let f) = result, f.code == .refused, !f.retryable { return f }
        return nil
    }

    @Test func aPublicTitleCannotReachLoopbackByAddressOrByName() async throws {
        let inner = try await ScriptedOrigin()
        defer { Task { await inner.stop() } }
        let byAddress = try #require(refusal(await fetch(inner.url("/file/a-100"), publicTitle)))
        #expect(byAddress.message.contains("127.0.0.1") && byAddress.message.contains("loopback"), "\(byAddress)")
        let byName = try #require(
            refusal(await fetch("http://localhost:\(inner.port)/file/a-100", publicTitle)))
        #expect(byName.message.contains("localhost resolves to"), "\(byName.message)")
        #expect(inner.connections == 0, "nothing reached the inner server")
        // The same server is fine for a title served from the box itself, by address and by (pinned) name.
        let local = FetchScope(reach: .loopback, source: inner.url("/master.m3u8"))
        #expect(try await fetch(inner.url("/file/a-100"), local).get().count == 100)
        #expect(try await fetch("http://localhost:\(inner.port)/file/a-100", local).get().count == 100)
    }

    @Test func aRequestConnectsToTheAddressThatWasChecked() async throws {
        let inner = try await ScriptedOrigin()
        defer { Task { await inner.stop() } }
        // A name the system cannot resolve: only a connection to the checked address reaches the server.
        AddressGuard.shared.remember("pinned.invalid", as: [try #require(IPAddress("127.0.0.1"))])
        let local = FetchScope(reach: .loopback, source: "http://pinned.invalid/master.m3u8")
        #expect(try await fetch("http://pinned.invalid:\(inner.port)/file/p-100", local).get().count == 100)
        // The batch connection too.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var work = FetchWork(
            url: "http://pinned.invalid:\(inner.port)/file/q-300", headers: [], rangeOffset: nil, rangeLength: nil,
            path: "t/q.bin")
        work.fresh = true
        let report = await HTTPFetcher.$scope.withValue(local) {
            await fetcher.downloadBatch(FetchBatch(items: [work]), taskID: "t", titlesRoot: root, progress: { _ in })
        }
        guard case .fetched = report.results.first else {
            Issue.record("fetched over the batch connection, got \(report.results)")
            return
        }
        // A name that moves inward is judged where it points now.
        AddressGuard.shared.remember("moving.invalid", as: [try #require(IPAddress("10.1.2.3"))])
        let failure = try #require(refusal(await fetch("http://moving.invalid/x", publicTitle)))
        #expect(failure.message.contains("moving.invalid resolves to 10.1.2.3"), "\(failure.message)")
    }

    @Test func aSourceBringsTheReachOfItsAddresses() async throws {
        let guardian = AddressGuard.shared
        #expect(try await guardian.reach(of: FetchScope(source: "http://127.0.0.1:9/a.m3u8")) == .loopback)
        #expect(try await guardian.reach(of: FetchScope(source: "http://localhost:9/a.m3u8")) == .loopback)
        guardian.remember("box.invalid", as: [try #require(IPAddress("127.0.0.1"))])
        #expect(try await guardian.reach(of: FetchScope(source: "http://box.invalid/a.m3u8")) == .private)
        guardian.remember(
            "mixed.invalid", as: [try #require(IPAddress("10.0.0.5")), try #require(IPAddress("8.8.8.8"))])
        #expect(try await guardian.reach(of: FetchScope(source: "http://mixed.invalid/a.m3u8")) == .public)
        #expect(try await guardian.reach(of: FetchScope()) == .loopback, "the operator's own fetch")
    }

    @Test func aHostKeepsItsClientWhileItsAddressIsStillAllowed() async throws {
        let pinned = PinnedClients(configuration: HTTPFetcher.configuration(connectionsPerHost: 2))
        let a = try #require(IPAddress("192.0.2.1")), b = try #require(IPAddress("192.0.2.2"))
        let first = pinned.client(host: "cdn.example", allowed: [a, b])
        #expect(pinned.client(host: "cdn.example", allowed: [b, a]) === first, "a rotated answer keeps the client")
        let moved = pinned.client(host: "cdn.example", allowed: [b])
        #expect(moved !== first, "an address no longer allowed is not used")
        #expect(pinned.client(host: "other.example", allowed: [a]) !== first)
        await pinned.shutdown()
    }

    @Test func aRedirectIsJudgedAtItsTarget() async throws {
        let outer = try await ScriptedOrigin()
        let inner = try await ScriptedOrigin(host: "127.0.0.3")
        defer {
            Task {
                await outer.stop()
                await inner.stop()
            }
        }
        let scope = FetchScope(
            network: NetworkPolicy(deny: [try #require(IPNetwork(parsing: "127.0.0.3/32"))]), reach: .loopback,
            source: outer.url("/master.m3u8"))
        let target = inner.url("/file/b-100").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let failure = try #require(refusal(await fetch(outer.url("/to/\(target)"), scope)))
        #expect(failure.message.contains("127.0.0.3") && failure.message.contains("denied"), "\(failure.message)")
        #expect(outer.requests == 1 && inner.connections == 0)
        // The metadata address is never fetched, whatever the reach.
        let metadata = "http://169.254.169.254/latest/meta-data/".addingPercentEncoding(
            withAllowedCharacters: .alphanumerics)!
        let never = try #require(refusal(await fetch(outer.url("/to/\(metadata)"), scope)))
        #expect(never.message.contains("link-local"), "\(never.message)")
    }

    @Test func aBatchConnectionIsRefusedLikeAnyRequest() async throws {
        let inner = try await ScriptedOrigin()
        defer { Task { await inner.stop() } }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let items = (0..<3).map { i in
            var work = FetchWork(
                url: inner.url("/file/c\(i)-500"), headers: [], rangeOffset: nil, rangeLength: nil, path: "t/\(i).bin")
            work.fresh = true
            return work
        }
        let report = await HTTPFetcher.$scope.withValue(publicTitle) {
            await fetcher.downloadBatch(FetchBatch(items: items), taskID: "t", titlesRoot: root, progress: { _ in })
        }
        for result in report.results {
            guard case .failed(let f) = result, f.code == .refused else {
                Issue.record("every file refused, got \(result)")
                continue
            }
        }
        #expect(inner.connections == 0)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("t/0.bin").path))
    }

    @Test func credentialsGoOnlyToTheTitlesHosts() async throws {
        let source = try await ScriptedOrigin()
        let other = try await ScriptedOrigin(host: "127.0.0.2")
        defer {
            Task {
                await source.stop()
                await other.stop()
            }
        }
        let headers = [Header(name: "Authorization", value: "Bearer secret"), Header(name: "Cookie", value: "s=1")]
        let scope = FetchScope(reach: .loopback, source: source.url("/master.m3u8"))
        _ = try await fetch(source.url("/file/own-10"), scope, headers: headers).get()
        _ = try await fetch(other.url("/file/named-10"), scope, headers: headers).get()
        let hop = other.url("/file/hop-10").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        _ = try await fetch(source.url("/to/\(hop)"), scope, headers: headers).get()
        #expect(source.pathsWithCredentials.count == 2, "\(source.pathsWithCredentials)")
        #expect(other.requests == 2 && other.pathsWithCredentials.isEmpty, "\(other.pathsWithCredentials)")
        // A host the operator named gets them too.
        var named = scope
        named.headerHosts = ["127.0.0.2"]
        _ = try await fetch(other.url("/file/trusted-10"), named, headers: headers).get()
        #expect(other.pathsWithCredentials == ["/file/trusted-10"])
    }
}
