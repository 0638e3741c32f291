import Foundation
import Logging
import StowageProtocol
import Testing

@testable import StowageFetch

/// A batch of plain-HTTP files goes over one kept-alive connection of its own; what that connection cannot
/// carry goes through the general client, and every file ends on disk whole or as a failure that names it.
@Suite("Fetch batches over one connection", .serialized)
struct OriginConnectionTests {
    /// One client for the suite (a client must be shut down before it goes; a static one never goes).
    static let fetcher = HTTPFetcher(logger: Logger(label: "test"))
    var fetcher: HTTPFetcher { Self.fetcher }

    func fetch(_ paths: [String], from origin: ScriptedOrigin, into root: URL) async -> FetchBatchReport {
        let items = paths.enumerated().map { i, path in
            var work = FetchWork(
                url: origin.url(path), headers: [], rangeOffset: nil, rangeLength: nil, path: "t/\(i)-f.bin")
            work.fresh = true
            return work
        }
        return await fetcher.downloadBatch(
            FetchBatch(items: items), taskID: "t1", titlesRoot: root, progress: { _ in })
    }

    func stored(_ i: Int, _ root: URL) -> [UInt8]? {
        (try? Data(contentsOf: root.appendingPathComponent("t/\(i)-f.bin"))).map { [UInt8]($0) }
    }

    func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func aBatchUsesOneConnectionForAllItsFiles() async throws {
        let origin = try await ScriptedOrigin()
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let names = (0..<20).map { "/file/s\($0)-\(1000 + 700 * $0)" }
        let before = fetcher.connectionAnswers.load(ordering: .relaxed)
        let pipelinedBefore = fetcher.pipelinedRequests.load(ordering: .relaxed)
        let report = await fetch(names, from: origin, into: root)
        #expect(
            fetcher.connectionAnswers.load(ordering: .relaxed) - before == 20, "answers over the batch's connection")
        for (i, name) in names.enumerated() {
            guard case .fetched(let r) = report.results[i] else {
                Issue.record("\(name): \(report.results[i])")
                continue
            }
            let expected = ScriptedOrigin.body(for: String(name.split(separator: "/").last!))
            #expect(r.bytes == Int64(expected.count))
            let same = stored(i, root) == expected
            #expect(same, "\(name) on disk")
        }
        #expect(origin.requests == 20)
        #expect(origin.connections == 1)
        // The first request goes alone; once it is answered on a kept connection the rest go 16 at a time.
        #expect(fetcher.pipelinedRequests.load(ordering: .relaxed) - pipelinedBefore == 19)
        #expect(origin.readsOfSeveralRequests >= 2, "requests written ahead reach the origin together")
        await origin.stop()
    }

    @Test func requestsWrittenAheadAreAskedForAgainWhenTheOriginCloses() async throws {
        let origin = try await ScriptedOrigin()
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        // Written ahead after a: b..k; the origin closes after c (and after f on the next connection), so the
        // requests it left unanswered are written again on a new connection; the 404 ends its connection too.
        let names = [
            "/file/a-1000", "/file/b-2000", "/closing/c-3000", "/file/d-4000", "/file/e-500", "/closing/f-600",
            "/file/g-700", "/nothing/h", "/file/i-900", "/file/j-1000", "/file/k-1100",
        ]
        let report = await fetch(names, from: origin, into: root)
        for (i, name) in names.enumerated() where i != 7 {
            let expected = ScriptedOrigin.body(for: String(name.split(separator: "/").last!))
            let same = stored(i, root) == expected
            #expect(same, "\(name): \(report.results[i])")
        }
        if case .failed(let f) = report.results[7] {
            #expect(f.status == 404)
        } else {
            Issue.record("\(report.results[7])")
        }
        #expect(origin.connections == 4)
        #expect(origin.readsOfSeveralRequests >= 2)
        await origin.stop()
    }

    @Test func closedConnectionsChunkedBodiesAndRedirectsAreFollowed() async throws {
        let origin = try await ScriptedOrigin()
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let names = [
            "/closing/a-3000", "/closing/b-4000", "/dropping/c-5000", "/file/d-6000", "/chunked/e-70000",
            "/moved/f-2000", "/file/g-100",
        ]
        let before = fetcher.connectionAnswers.load(ordering: .relaxed)
        let report = await fetch(names, from: origin, into: root)
        // Not over the batch's connection: the redirect, and the request sent on the dropped connection.
        #expect(fetcher.connectionAnswers.load(ordering: .relaxed) - before == names.count - 2)
        for (i, name) in names.enumerated() {
            let expected = ScriptedOrigin.body(for: String(name.split(separator: "/").last!))
            let same = stored(i, root) == expected
            #expect(same, "\(name): \(report.results[i])")
        }
        // closing ×2 and dropping each end their connection; the redirect goes through the general client.
        #expect(origin.connections >= 4)
        await origin.stop()
    }

    @Test func onlyTheRequestWrittenAheadNextIsReadFromTheConnection() async throws {
        let server = try await ScriptedOrigin()
        let origin = try #require(Origin(of: server.url("/")))
        try await OriginConnection.with(origin) { connection in
            #expect(!connection.wantsAhead, "nothing is written ahead before the origin kept the connection once")
            _ = try await connection.get("/file/a-10", headers: [:])
            while try await connection.nextBody() != nil {}
            #expect(connection.wantsAhead)
            #expect(await connection.sendAhead([("/file/b-20", [:]), ("/file/c-30", [:])]) == 2)
            #expect(!connection.wantsAhead, "not again until both are answered")
            var body: [UInt8] = []
            #expect(try await connection.get("/file/b-20", headers: [:]).status == .ok)
            while let piece = try await connection.nextBody() { body += piece.readableBytesView }
            #expect(body == ScriptedOrigin.body(for: "b-20"))
            // d was not written ahead: c's answer comes first, so this connection cannot carry d.
            await #expect(throws: OriginConnectionError.notWrittenAhead) {
                try await connection.get("/file/d-40", headers: [:])
            }
            #expect(!connection.reusable)
        }
        #expect(server.requests == 3)
        await server.stop()
    }

    @Test func aMissingFileFailsAloneAndACutBodyStopsTheBatch() async throws {
        let origin = try await ScriptedOrigin()
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let report = await fetch(
            ["/file/a-2000", "/nothing/here", "/file/b-2000", "/cut/c-5000", "/file/d-2000"], from: origin,
            into: root)
        guard report.results.count == 5 else {
            Issue.record("\(report.results.count) results")
            return
        }
        if case .failed(let f) = report.results[1] {
            #expect(f.code == .httpStatus && f.status == 404 && !f.retryable)
        } else {
            Issue.record("a 404: \(report.results[1])")
        }
        if case .fetched = report.results[2] {} else { Issue.record("after a 404: \(report.results[2])") }
        if case .failed(let f) = report.results[3] {
            #expect(f.code == .network && f.retryable, "\(f)")
            #expect(f.message.contains("/cut/c-5000"), "\(f.message)")
        } else {
            Issue.record("a cut body: \(report.results[3])")
        }
        #expect(report.results[4] == .notAttempted)
        #expect(stored(3, root) == nil, "a cut file is not stored")
        await origin.stop()
    }

    @Test func anOriginThatCannotBeReachedFailsTheBatchWithItsAddress() async throws {
        let origin = try await ScriptedOrigin()
        let port = origin.port
        await origin.stop()
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let items = (0..<3).map {
            FetchWork(
                url: "http://127.0.0.1:\(port)/file/x-10", headers: [], rangeOffset: nil, rangeLength: nil,
                path: "t/\($0).bin")
        }
        let report = await fetcher.downloadBatch(
            FetchBatch(items: items), taskID: "t2", titlesRoot: root, progress: { _ in })
        if case .failed(let f) = report.results.first {
            #expect(f.code == .network && f.message.contains("127.0.0.1:\(port)"), "\(f.message)")
        } else {
            Issue.record("\(report.results)")
        }
        #expect(report.results.dropFirst().allSatisfy { $0 == .notAttempted })
    }

    @Test func originsAndTargets() {
        let o = Origin(of: "http://example.com:8080/a/b.ts?x=1#frag")
        #expect(o?.host == "example.com" && o?.port == 8080 && o?.authority == "example.com:8080")
        #expect(o?.target(of: "http://example.com:8080/a/b.ts?x=1#frag") == "/a/b.ts?x=1")
        #expect(o?.target(of: "http://example.com:8080/a b.ts") == nil)
        #expect(o?.target(of: "http://other:8080/a.ts") == nil)
        #expect(Origin(of: "https://example.com/a.ts") == nil)
        #expect(Origin(of: "http://user:pw@example.com/a.ts") == nil)
        #expect(Origin(of: "http://[::1]:81/x")?.host == "::1")
        #expect(Origin(of: "http://h/x")?.port == 80)
    }
}
