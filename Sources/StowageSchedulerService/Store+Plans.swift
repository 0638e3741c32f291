import Foundation
import StowageIntegrity
import StowageProtocol
import StowageStore

/// A title's plan and offline playlists as the store holds them: read by the pipeline (completion, playback), by
/// a peer's manifest and by an export, so written once here over the store alone.
extension Store {
    /// The offline plan as stored: what a bundle or a peer's manifest carries so another box holds the same title.
    func storedPlan(_ title: TitleRecord) throws -> ResolvedPlan {
        try storedPlan(title, resources: resources(token: title.token))
    }

    /// The offline plan as stored, over the title's resource rows already read (in the store's order).
    func storedPlan(_ title: TitleRecord, resources records: [ResourceRecord]) throws -> ResolvedPlan {
        let renditions = try self.renditions(token: title.token).map {
            PlannedRendition(
                kind: $0.kind, sourceURL: $0.sourceURL, localPath: $0.localPath, playlist: $0.playlist,
                language: $0.language)
        }
        // Files the box writes itself (its subtitles as text, its single file) are not in a plan another box
        // fetches: it writes its own when its copy completes.
        let resources = records.filter { !$0.kind.isWrittenByBox }.map { r in
            var planned = PlannedResource(
                kind: r.kind, rendition: r.rendition, url: r.url, rangeOffset: r.rangeOffset,
                rangeLength: r.rangeLength, localPath: r.localPath, container: r.container, encrypted: r.encrypted,
                duration: r.duration)
            planned.alternates = r.alternates
            planned.cipher = r.cipher
            return planned
        }
        let keys = try self.keys(token: title.token).map {
            PlannedKey(uri: $0.uri, method: $0.method, keyFormat: $0.keyFormat, keyID: $0.keyID)
        }
        let bookmarks = try self.bookmarks(token: title.token).filter { $0.kind == .index }.map {
            Bookmark(position: $0.position, label: $0.label, kind: .index)
        }
        var plan = ResolvedPlan(
            masterPlaylist: title.masterPlaylist ?? "", renditions: renditions, resources: resources,
            bytesEstimate: title.bytesEstimate, keys: keys, bookmarks: bookmarks, manifestName: title.manifestName,
            protection: title.protection)
        plan.reach = title.reach
        return plan
    }

    /// The offline playlists (relative path, text) and which of them is the entry point.
    func offlinePlaylists(_ title: TitleRecord) throws -> (files: [(String, String)], entry: String) {
        if let manifest = title.manifestName, title.masterPlaylist != nil {
            return ([(manifest, try liveManifest(title))], manifest)  // DASH: one manifest names every file
        }
        let renditions = try self.renditions(token: title.token)
        var files = renditions.map { ($0.localPath, $0.playlist) }
        if let master = title.masterPlaylist, !master.isEmpty {
            files.append(("master.m3u8", master))
            return (files, "master.m3u8")
        }
        return (files, renditions.first?.localPath ?? "master.m3u8")
    }

    /// Writes a title's offline playlists into its folder `dir` (partial downloads left by workers that died
    /// mid-fetch go first: once a title is complete nothing writes them); returns the entry playlist's path.
    func writeOfflinePlaylists(_ title: TitleRecord, in dir: URL) throws -> String {
        FetchLeftovers.remove(under: dir.path)
        let playlists = try offlinePlaylists(title)
        for (path, text) in playlists.files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        }
        return playlists.entry
    }

    /// Titles suspended before the reason was stored (before v7) get it once, from their error: from then on
    /// `suspendedReason` alone says why a title waits.
    func fillSuspendedReasons() throws {
        for var title in try titles(state: .suspended) where title.suspendedReason == nil {
            title.suspendedReason = title.errorCode == ErrorCode.diskFull.rawValue ? .diskFull : .paused
            try update(title)
        }
    }
}
