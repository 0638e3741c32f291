import Foundation
import StowageHLS
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageStore

extension SchedulerService {
    /// The playability verdict for a title right now. `thorough` checks every file (play, playable);
    /// otherwise only the entry playlist (status and list, which must stay cheap for many titles).
    /// `streaming` (play and its keys): a title still downloading may be played, what is missing coming
    /// from the origin.
    func playability(_ title: TitleRecord, thorough: Bool = true, startingPlay: Bool = false, streaming: Bool = false)
        throws -> PlayAuthorization
    {
        let stillDownloading =
            streaming && title.planned && [.recording, .downloading, .verifying, .suspended].contains(title.state)
        let dir = options.home.titleDirectory(title.token)
        let entry = title.localPlaylist
        var filesPresent =
            entry.map { FileManager.default.fileExists(atPath: dir.appendingPathComponent($0).path) } ?? false
        if thorough, filesPresent, title.state == .completed {
            filesPresent = try store.resources(token: title.token).filter({ $0.state != .gap }).allSatisfy {
                FileManager.default.fileExists(atPath: dir.appendingPathComponent($0.localPath).path)
            }
        }
        let keysPresent = try store.keys(token: title.token).allSatisfy { $0.wrapped != nil }
        let facts = PlaybackPolicy.Facts(
            completed: title.state == .completed, expiresAt: nil,
            filesPresent: filesPresent, keysPresent: keysPresent, now: now(),
            streaming: stillDownloading)
        var refusal = PlaybackPolicy.refusal(facts)
        if refusal == nil, title.errorCode == ErrorCode.integrity.rawValue {
            refusal = title.errorMessage ?? "files of the offline copy failed verification"
        }
        if refusal == nil, let t = terms(of: title) {
            refusal = LicensePolicy.refusal(
                t, usage(of: title), now: now(), clockRolledBack: clockRolledBack(for: title),
                startingPlay: startingPlay)
        }
        if let reason = refusal {
            return PlayAuthorization(playable: false, reason: reason, directory: nil, entryPlaylist: nil)
        }
        if stillDownloading {
            var playlists = try offlinePlaylists(title)
            if isRecording(title) {
                // What was recorded when play started, as VOD: a player plays it through and ends.
                playlists.files = playlists.files.map { path, text in
                    (
                        path,
                        path.hasSuffix("master.m3u8") || text.isEmpty ? text : LiveRecorder.finalText(text, longest: 0)
                    )
                }
            }
            let sources = try store.resources(token: title.token).filter { $0.state != .gap }.map {
                PlaySource(
                    localPath: $0.localPath, url: $0.url, rangeOffset: $0.rangeOffset, rangeLength: $0.rangeLength)
            }
            let plan = StreamingPlan(
                playlists: Dictionary(playlists.files, uniquingKeysWith: { a, _ in a }), sources: sources,
                headers: decode([Header].self, title.headers) ?? [])
            return PlayAuthorization(
                playable: true, reason: nil, directory: dir.path, entryPlaylist: playlists.entry, streaming: plan)
        }
        return PlayAuthorization(playable: true, reason: nil, directory: dir.path, entryPlaylist: entry)
    }

    /// `play`: authorise and count one play.
    func authorizePlay(_ token: String) throws -> PlayAuthorization {
        guard var title = try store.title(token) else { throw unknownTitle(token) }
        let verdict = try playability(title, startingPlay: true, streaming: true)
        guard verdict.playable else { return verdict }
        title.playCount += 1
        title.firstPlayedAt = title.firstPlayedAt ?? now()
        try store.update(title)
        try store.appendEvent(token: token, kind: "play", detail: "play \(title.playCount) authorised")
        return verdict
    }

    /// `key`: a content key, released only while the title is playable.
    func releaseKey(_ token: String, index: Int) throws -> String {
        guard let title = try store.title(token) else { throw unknownTitle(token) }
        let verdict = try playability(title, streaming: true)
        guard verdict.playable else {
            throw TitleError(code: .license, message: "key refused: \(verdict.reason ?? "not playable")")
        }
        guard let record = try store.keys(token: token).first(where: { $0.position == index }),
            let wrapped = record.wrapped
        else {
            throw TitleError(code: .license, message: "title \(token) has no key \(index)")
        }
        return Data(try vault.unwrap(wrapped, token: token, index: index)).base64EncodedString()
    }

    func unknownTitle(_ token: String) -> TitleError {
        TitleError(
            code: .notFound, message: "no title with token '\(token.prefix(64))'; `stowctl list` shows the tokens")
    }
}
