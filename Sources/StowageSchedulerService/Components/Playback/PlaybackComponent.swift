import Foundation
import StowageHLS
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageStore

/// Playing a title offline: whether it may be played now (files, keys, license, the clock guard), authorising and
/// counting a play, handing out a content key only while the title is playable, and the bookmarks a player shows.
/// `status`, `license`, the gateway and `stowctl play` all ask the one verdict here.
final class PlaybackComponent: SchedulerComponent {
    let name = "playback"
    let context: ComponentContext
    /// Content keys are unwrapped only here, for a playable title.
    private let vault: KeyVault
    /// Whether a title's license predates a clock rollback (the clock guard's).
    private let clockRolledBack: (TitleRecord) -> Bool
    /// Where a title still downloading is fetched from while it plays.
    private let fetchScope: (String) throws -> FetchScope?

    init(
        context: ComponentContext, vault: KeyVault, clockRolledBack: @escaping (TitleRecord) -> Bool,
        fetchScope: @escaping (String) throws -> FetchScope?
    ) {
        self.context = context
        self.vault = vault
        self.clockRolledBack = clockRolledBack
        self.fetchScope = fetchScope
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .playable(let token):
            guard let title = try context.store.title(token) else { throw TitleError.noTitle(token) }
            return .play(try withServingDetails(playability(title, startingPlay: true), of: title))
        case .play(let token, _):
            return .play(try authorizePlay(token))
        case .key(let token, let index):
            return .key(try releaseKey(token, index: index))
        default:
            return try answerBookmarks(request.operation)
        }
    }

    /// The playability verdict for a title right now. `thorough` checks every file (play, playable);
    /// otherwise only the entry playlist (status and list, which must stay cheap for many titles).
    /// `streaming` (play and its keys): a title still downloading may be played, what is missing coming
    /// from the origin.
    func playability(
        _ title: TitleRecord, thorough: Bool = true, startingPlay: Bool = false, streaming: Bool = false
    ) throws -> PlayAuthorization {
        let stillDownloading =
            streaming && title.planned && [.recording, .downloading, .verifying, .suspended].contains(title.state)
        let dir = context.home.titleDirectory(title.token)
        let entry = title.localPlaylist
        var filesPresent =
            entry.map { FileManager.default.fileExists(atPath: dir.appendingPathComponent($0).path) } ?? false
        if thorough, filesPresent, title.state == .completed {
            filesPresent = try context.store.resources(token: title.token).filter({ $0.state != .gap }).allSatisfy {
                FileManager.default.fileExists(atPath: dir.appendingPathComponent($0.localPath).path)
            }
        }
        let keysPresent = try context.store.keys(token: title.token).allSatisfy { $0.wrapped != nil }
        var facts = PlaybackPolicy.Facts(
            completed: title.state == .completed, expiresAt: nil,
            filesPresent: filesPresent, keysPresent: keysPresent, now: context.clock.now(),
            streaming: stillDownloading, deviceOnly: title.protection?.deviceOnly ?? false,
            corrupt: title.errorCode == ErrorCode.integrity.rawValue)
        facts.transferredTo = title.transferredTo
        var refusal = NotPlayableReason.ended(title.state) ?? PlaybackPolicy.reason(facts)
        if refusal?.code == .filesCorrupt, let message = title.errorMessage { refusal?.message = message }
        if refusal == nil, let t = title.licenseTerms {
            refusal = LicensePolicy.reason(
                t, title.licenseUsage, now: context.clock.now(), clockRolledBack: clockRolledBack(title),
                startingPlay: startingPlay)
        }
        if let reason = refusal {
            var verdict = PlayAuthorization(playable: false, reason: reason.message, directory: nil, entryPlaylist: nil)
            verdict.notPlayable = reason
            return verdict
        }
        if stillDownloading {
            var playlists = try context.store.offlinePlaylists(title)
            if title.isRecording {
                // What was recorded when play started, as VOD: a player plays it through and ends.
                playlists.files = playlists.files.map { path, text in
                    (
                        path,
                        path.hasSuffix("master.m3u8") || text.isEmpty ? text : LiveRecorder.finalText(text, longest: 0)
                    )
                }
            }
            // Files the box writes itself have no URL to stream from (and are written only once it completes).
            let sources = try context.store.resources(token: title.token).filter {
                $0.state != .gap && !$0.kind.isWrittenByBox
            }.map {
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
        let renditions = try context.store.renditions(token: title.token)
        let video = Set(renditions.filter { $0.kind == .video }.map(\.position))
        let counted = video.isEmpty ? Set(renditions.prefix(1).map(\.position)) : video
        var out: [String: Double] = [:]
        for r in try context.store.resources(token: title.token)
        where r.kind == .segment && counted.contains(r.rendition) {
            out["/" + r.localPath] = r.duration
        }
        return out
    }

    /// The title's Clear Key key IDs (hex, lowercase) by key index.
    func clearKeyIDs(_ title: TitleRecord) throws -> [String: Int]? {
        var ids: [String: Int] = [:]
        for key in try context.store.keys(token: title.token) where key.keyFormat == "org.w3.clearkey" {
            guard let id = key.keyID, let bytes = KeyEncoding.hex(id) else { continue }
            ids[KeyEncoding.hexString(bytes)] = key.position
        }
        return ids.isEmpty ? nil : ids
    }

    /// `play`: authorise and count one play.
    func authorizePlay(_ token: String) throws -> PlayAuthorization {
        guard var title = try context.store.title(token) else { throw TitleError.noTitle(token) }
        let verdict = try withServingDetails(playability(title, startingPlay: true, streaming: true), of: title)
        guard verdict.playable else { return verdict }
        title.playCount = max(title.playCount, title.playCount &+ 1)  // a count imported at Int.max stays there
        title.firstPlayedAt = title.firstPlayedAt ?? context.clock.now()
        title.lastPlayedAt = context.clock.now()
        try context.store.update(title)
        try context.desk.record(TitleHappening(token, kind: "play", detail: "play \(title.playCount) authorised"))
        return verdict
    }

    /// A play already counted (its `playID` was applied) asked again after a lost answer or a takeover: the
    /// verdict as for a play under way (a last play allowed stays allowed), counting nothing.
    func repeatedPlay(_ token: String) throws -> PlayAuthorization {
        guard let title = try context.store.title(token) else { throw TitleError.noTitle(token) }
        return try withServingDetails(playability(title, startingPlay: false, streaming: true), of: title)
    }

    /// `key`: a content key, released only while the title is playable.
    func releaseKey(_ token: String, index: Int) throws -> String {
        guard let title = try context.store.title(token) else { throw TitleError.noTitle(token) }
        let verdict = try playability(title, streaming: true)
        guard verdict.playable else {
            throw TitleError(code: .license, message: "key refused: \(verdict.reason ?? "not playable")")
        }
        guard let record = try context.store.keys(token: token).first(where: { $0.position == index }),
            let wrapped = record.wrapped
        else {
            throw TitleError(code: .license, message: "title \(token) has no key \(index)")
        }
        return Data(try vault.unwrap(wrapped, token: token, index: index)).base64EncodedString()
    }
}
