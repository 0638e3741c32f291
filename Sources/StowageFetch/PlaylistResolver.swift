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
                let master = try MasterPlaylist(text: text, url: finalURL)
                let choice = try RenditionSelector.select(master, work.selection)
                var inputs = [
                    OfflinePlanner.Input(
                        kind: .video,
                        playlist: try await media(
                            choice.variant.uri, base: master.url,
                            line: choice.variant.line, work), rendition: nil)
                ]
                for r in choice.audio where r.uri != nil {
                    inputs.append(
                        .init(
                            kind: .audio, playlist: try await media(r.uri!, base: master.url, line: r.line, work),
                            rendition: r))
                }
                for r in choice.subtitles {
                    inputs.append(
                        .init(
                            kind: .subtitles, playlist: try await media(r.uri!, base: master.url, line: r.line, work),
                            rendition: r))
                }
                var iFrames: MediaPlaylist?
                if let stream = choice.iFrames, !live, work.range == nil {
                    iFrames = try await media(stream.uri, base: master.url, line: stream.line, work)
                }
                return try OfflinePlanner.plan(
                    master: master, choice: choice, inputs: inputs, live: live, iFrames: iFrames, range: work.range)
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

    private func media(_ uri: String, base: String, line: Int, _ work: ResolveWork) async throws -> MediaPlaylist {
        let url = try URIResolver.resolve(uri, against: base, line: line)
        let (text, finalURL) = try await fetcher.fetchText(url, headers: work.headers)
        return try MediaPlaylist(text: text, url: finalURL, allowLive: work.live == true)
    }

    static func failure(_ error: PlaylistError) -> TaskFailure {
        let code: ErrorCode = error.kind == .refusedURI ? .refused : .playlist
        return TaskFailure(code: code, message: error.description, retryable: false)
    }
}
