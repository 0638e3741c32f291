import StowageHLS
import StowageProtocol

/// Resolves a title: fetches the playlist at its URL (master or media), applies the selection, fetches
/// the chosen media playlists and plans the offline copy. An MPD goes to ``DASHResolver``.
public struct PlaylistResolver: Sendable {
    let fetcher: HTTPFetcher

    public init(fetcher: HTTPFetcher) { self.fetcher = fetcher }

    public func resolve(_ work: ResolveWork) async throws(TaskFailure) -> ResolvedPlan {
        let (text, finalURL) = try await fetcher.fetchText(work.url, headers: work.headers)
        return try await resolve(work, text: text, url: finalURL)
    }

    /// Plans `work` from its playlist or MPD already fetched (`text`, answered for `finalURL`).
    func resolve(_ work: ResolveWork, text: String, url finalURL: String) async throws(TaskFailure) -> ResolvedPlan {
        let live = work.live == true
        if DASHResolver.isMPD(text) {
            if live { return try DASHResolver(fetcher: fetcher).resolveLive(text: text, url: finalURL, work: work) }
            return try await DASHResolver(fetcher: fetcher).resolve(text: text, url: finalURL, work: work)
        }
        do {
            if PlaylistLines.isMaster(text) {
                return try await planMaster(try MasterPlaylist(text: text, url: finalURL), work, live: live)
            }
            let playlist = try MediaPlaylist(text: text, url: finalURL, allowLive: live)
            return try OfflinePlanner.plan(
                master: nil, choice: nil, inputs: [.init(kind: .video, playlist: playlist, rendition: nil)], live: live,
                range: work.range)
        } catch let error as PlaylistError {
            throw Self.failure(error)
        } catch let failure as TaskFailure {
            throw failure
        } catch {
            throw TaskFailure(code: .internal, message: "\(error)", retryable: false)
        }
    }

    func media(_ uri: String, base: String, line: Int, _ work: ResolveWork) async throws -> MediaPlaylist {
        let url = try URIResolver.resolve(uri, against: base, line: line)
        let (text, finalURL) = try await fetcher.fetchText(url, headers: work.headers)
        return try MediaPlaylist(text: text, url: finalURL, allowLive: work.live == true)
    }

    static func failure(_ error: PlaylistError) -> TaskFailure {
        let code: ErrorCode = error.kind == .refusedURI ? .refused : .playlist
        return TaskFailure(code: code, message: error.description, retryable: false)
    }
}
