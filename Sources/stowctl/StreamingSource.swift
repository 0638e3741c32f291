import Foundation
import Logging
import StowageFetch
import StowageOrigin
import StowageProtocol

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
        if let data = try? Data(contentsOf: directory.appendingPathComponent(relative), options: .mappedIfSafe) { return .success(data) }
        let fetcher = self.fetcher, headers = plan.headers
        do {
            return .success(try blocking {
                try await fetcher.fetchData(source.url, headers: headers, offset: source.rangeOffset, length: source.rangeLength)
            })
        } catch {
            let reason = (error as? TaskFailure)?.message ?? "\(error)"
            return .failure(.init("fetching \(relative) from the origin: \(reason)"))
        }
    }

    func shutdown() { fetcher.syncShutdown() }
}
