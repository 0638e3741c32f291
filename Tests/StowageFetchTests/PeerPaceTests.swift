import Foundation
import Logging
import StowageProtocol
import Testing

@testable import StowageFetch

/// A peer box's answers are held to a pace (``FetchScope/sourceLimits``): a file that drips is cut within a window,
/// failing as a retryable `network` failure that names the host and the limit, so the worker's slot is free again.
/// Answers from any other origin are not watched.
@Suite("Peer answers held to a pace", .serialized)
struct PeerPaceTests {
    static let fetcher = HTTPFetcher(logger: Logger(label: "test"))

    func download(_ url: String, _ scope: FetchScope, into root: URL) async -> Result<FetchReport, TaskFailure> {
        let work = FetchWork(url: url, headers: [], rangeOffset: nil, rangeLength: nil, path: "t/seg.ts")
        return await HTTPFetcher.$scope.withValue(scope) {
            do throws(TaskFailure) {
                return .success(try await Self.fetcher.download(work, taskID: "t1", titlesRoot: root) { _ in })
            } catch {
                return .failure(error)
            }
        }
    }

    @Test func aDrippingPeerFileIsCutWithinAWindowNamingTheHostAndTheLimit() async throws {
        let peer = try await ScriptedOrigin()
        defer { Task { await peer.stop() } }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var scope = FetchScope(reach: .loopback, source: peer.url("/titles/film/manifest.json"))
        scope.sourceLimits = BodyLimits(minRate: 1_000, window: 1, total: 600)
        let clock = ContinuousClock()
        let start = clock.now
        // 300 bytes at 10 bytes/s: 30 s if it were waited for.
        let result = await download(peer.url("/drip/seg-300"), scope, into: root)
        guard case .failure(let failure) = result else {
            Issue.record("a dripping file was accepted: \(result)")
            return
        }
        // About a window (1 s); the bound leaves room for a loaded machine and is still far from the drip's 30 s.
        #expect(clock.now - start < .seconds(20), "cut within about a window, not when the drip ends")
        #expect(failure.code == .network && failure.retryable, "\(failure)")
        #expect(failure.message.contains("127.0.0.1") && failure.message.contains("--min-body-rate"), "\(failure)")

        // The same drip from the title's origin (not the peer) is not watched: it completes.
        var origin = scope
        origin.source = "http://127.0.0.2:1/master.m3u8"
        let short = await download(peer.url("/drip/seg-12"), origin, into: root)
        guard case .success(let report) = short else {
            Issue.record("an origin's slow file was cut: \(short)")
            return
        }
        #expect(report.bytes == 12)
    }
}
