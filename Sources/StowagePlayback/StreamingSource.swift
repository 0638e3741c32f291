import Foundation
import StowageProtocol

/// What is served of a title that is still downloading and is not on disk yet: the offline playlists from
/// the scheduler's plan (`PlayAuthorization.streaming`), and each missing file fetched from its source on
/// demand — kept in memory only, so the download's files, progress and accounting are untouched.
public final class StreamingSource: Sendable {
    /// What ``provide(_:)`` found.
    public enum Answer: Sendable, Equatable {
        case data(Data)
        /// The file is known but could not be fetched (502).
        case failed(String)
    }

    private let directory: URL
    private let plan: StreamingPlan
    private let sources: [String: PlaySource]
    private let fetcher: any PlaySourceFetcher

    /// Serves what `directory` lacks of `plan`, fetching the missing files with `fetcher` (its own: it is shut
    /// down with this source).
    public init(directory: URL, plan: StreamingPlan, fetcher: any PlaySourceFetcher) {
        self.directory = directory
        self.plan = plan
        sources = Dictionary(plan.sources.map { ($0.localPath, $0) }, uniquingKeysWith: { a, _ in a })
        self.fetcher = fetcher
    }

    /// The offline playlists, as ``PlayMeter`` reads them.
    public var playlists: [String: String] { plan.playlists }

    /// The file at `relative` (`video/0001.ts`, a leading `/` is ignored), or nil when the plan does not
    /// know it (404).
    public func provide(_ relative: String) async -> Answer? {
        let relative = String(relative.drop(while: { $0 == "/" }))
        if let text = plan.playlists[relative] { return .data(Data(text.utf8)) }
        guard let source = sources[relative] else { return nil }
        // Landed since the request was routed here.
        if let data = try? Data(contentsOf: directory.appendingPathComponent(relative), options: .mappedIfSafe) {
            return .data(data)
        }
        // The title's own limits (hosts, addresses, where its headers go), as its downloads have; a plan without
        // them (an older scheduler) gets the narrowest: public addresses only.
        let scope = plan.scope ?? FetchScope(reach: .public)
        do throws(TaskFailure) {
            return .data(try await fetcher.fetch(source, headers: plan.headers, scope: scope))
        } catch {
            return .failed("fetching \(relative) from the origin: \(error.message)")
        }
    }

    /// Closes the origin connections.
    public func shutdown() async { await fetcher.shutdown() }
}
