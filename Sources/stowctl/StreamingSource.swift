import Dispatch
import Foundation
import Logging
import StowageFetch
import StowageOrigin
import StowageProtocol
import Synchronization

/// What `play` serves of a title that is still downloading and is not on disk yet: the offline playlists
/// from the scheduler's plan, and each missing file fetched from its source on demand — kept in memory
/// only, so the download's files, progress and accounting are untouched.
final class StreamingSource: Sendable {
    private let directory: URL
    private let plan: StreamingPlan
    private let sources: [String: PlaySource]
    private let fetcher: HTTPFetcher

    init(directory: URL, plan: StreamingPlan, logger: Logger) {
        self.directory = directory
        self.plan = plan
        sources = Dictionary(plan.sources.map { ($0.localPath, $0) }, uniquingKeysWith: { a, _ in a })
        fetcher = HTTPFetcher(logger: logger, connectionsPerHost: 4)
    }

    /// The offline playlists, as `PlayMeter` reads them.
    var playlists: [String: String] { plan.playlists }

    /// For `OriginServer.ContentProvider`: `path` is the request path (`/video/0001.ts`).
    func provide(_ path: String) -> Result<Data, OriginServer.KeyRefusal>? {
        let relative = String(path.drop(while: { $0 == "/" }))
        if let text = plan.playlists[relative] { return .success(Data(text.utf8)) }
        guard let source = sources[relative] else { return nil }
        // Landed since the request was routed here.
        if let data = try? Data(contentsOf: directory.appendingPathComponent(relative), options: .mappedIfSafe) {
            return .success(data)
        }
        let fetcher = self.fetcher, headers = plan.headers
        let fetched = Self.wait { () async throws(TaskFailure) -> Data in
            try await fetcher.fetchData(
                source.url, headers: headers, offset: source.rangeOffset,
                length: source.rangeLength)
        }
        return fetched.mapError { OriginServer.KeyRefusal("fetching \(relative) from the origin: \($0.message)") }
    }

    /// Closes the origin connections.
    func shutdown() async { await fetcher.shutdown() }

    /// `OriginServer` asks for content synchronously, on a Dispatch worker thread (never an event loop or a
    /// thread of the concurrency pool): the one place `play` waits there for async work, the fetch.
    private static func wait(for fetch: @escaping @Sendable () async throws(TaskFailure) -> Data)
        -> Result<Data, TaskFailure>
    {
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<Data, TaskFailure>
            do throws(TaskFailure) { result = .success(try await fetch()) } catch { result = .failure(error) }
            outcome.result.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.result.withLock { $0 }!
    }

    /// A fetch's result, handed from its task to the waiting thread.
    private final class Outcome: Sendable {
        let result = Mutex<Result<Data, TaskFailure>?>(nil)
    }
}
