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
        var facts = PlaybackPolicy.Facts(
            completed: title.state == .completed, expiresAt: nil,
            filesPresent: filesPresent, keysPresent: keysPresent, now: clock.now(),
            streaming: stillDownloading, deviceOnly: protection(of: title)?.deviceOnly ?? false,
            corrupt: title.errorCode == ErrorCode.integrity.rawValue)
        facts.transferredTo = title.transferredTo
        var refusal = NotPlayableReason.ended(title.state) ?? PlaybackPolicy.reason(facts)
        if refusal?.code == .filesCorrupt, let message = title.errorMessage { refusal?.message = message }
        if refusal == nil, let t = terms(of: title) {
            refusal = LicensePolicy.reason(
                t, usage(of: title), now: clock.now(), clockRolledBack: clockRolledBack(for: title),
                startingPlay: startingPlay)
        }
        if let reason = refusal {
            var verdict = PlayAuthorization(playable: false, reason: reason.message, directory: nil, entryPlaylist: nil)
            verdict.notPlayable = reason
            return verdict
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
                headers: title.headers, scope: try fetchScope(title.token))
            return PlayAuthorization(
                playable: true, reason: nil, directory: dir.path, entryPlaylist: playlists.entry, streaming: plan)
        }
        return PlayAuthorization(playable: true, reason: nil, directory: dir.path, entryPlaylist: entry)
    }

    /// A verdict handed to a server that will serve the title (`play`, `playable` for the gateway): when
    /// playable, the Clear Key key IDs its license endpoint answers and a DASH title's segment durations for the
    /// play meter. Kept out of ``playability(_:thorough:startingPlay:streaming:)``, which `status`, `list` and
    /// every key request run.
    func withServingDetails(_ verdict: PlayAuthorization, of title: TitleRecord) throws -> PlayAuthorization {
        guard verdict.playable else { return verdict }
        var verdict = verdict
        verdict.clearKeyIDs = try clearKeyIDs(title)
        verdict.mediaDurations = try mediaDurations(title)
        return verdict
    }

    /// A DASH title's segment durations for play-time metering: the video's, else the first track's (media time
    /// is counted once, as for HLS). nil for HLS titles (their playlists say).
    func mediaDurations(_ title: TitleRecord) throws -> [String: Double]? {
        guard title.manifestName != nil else { return nil }
        let renditions = try store.renditions(token: title.token)
        let video = Set(renditions.filter { $0.kind == .video }.map(\.position))
        let counted = video.isEmpty ? Set(renditions.prefix(1).map(\.position)) : video
        var out: [String: Double] = [:]
        for r in try store.resources(token: title.token) where r.kind == .segment && counted.contains(r.rendition) {
            out["/" + r.localPath] = r.duration
        }
        return out
    }

    /// The title's Clear Key key IDs (hex, lowercase) by key index.
    func clearKeyIDs(_ title: TitleRecord) throws -> [String: Int]? {
        var ids: [String: Int] = [:]
        for key in try store.keys(token: title.token) where key.keyFormat == "org.w3.clearkey" {
            guard let id = key.keyID, let bytes = KeyEncoding.hex(id) else { continue }
            ids[KeyEncoding.hexString(bytes)] = key.position
        }
        return ids.isEmpty ? nil : ids
    }

    /// `play`: authorise and count one play.
    func authorizePlay(_ token: String) throws -> PlayAuthorization {
        guard var title = try store.title(token) else { throw unknownTitle(token) }
        let verdict = try withServingDetails(playability(title, startingPlay: true, streaming: true), of: title)
        guard verdict.playable else { return verdict }
        title.playCount = max(title.playCount, title.playCount &+ 1)  // a count imported at Int.max stays there
        title.firstPlayedAt = title.firstPlayedAt ?? clock.now()
        title.lastPlayedAt = clock.now()
        try store.update(title)
        try record(TitleHappening(token, kind: "play", detail: "play \(title.playCount) authorised"))
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

    /// The title's protection as stored with its plan (nil: not encrypted).
    func protection(of title: TitleRecord) -> TitleProtection? {
        title.protection
    }

    /// Why a title only a device's DRM can play is not downloaded without `--allow-device-drm`.
    static func deviceOnlyRefusal(_ url: String, _ protection: TitleProtection) -> TitleError {
        TitleError(code: .refused, message: protection.deviceOnlyRefusal(url))
    }

    func unknownTitle(_ token: String) -> TitleError { .unknownTitle(token) }
}
