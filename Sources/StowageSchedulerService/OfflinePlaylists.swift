import StowageStore

/// A title's offline playlists as written when it completes (and served while it still downloads): a DASH title's
/// one manifest, or an HLS title's media playlists and its master.
enum OfflinePlaylists {
    /// The offline playlists (relative path, text) and which of them is the entry point.
    static func of(_ title: TitleRecord, store: Store) throws -> (files: [(String, String)], entry: String) {
        if let manifest = title.manifestName, let text = title.masterPlaylist {
            return ([(manifest, text)], manifest)  // DASH: one manifest names every file
        }
        let renditions = try store.renditions(token: title.token)
        var files = renditions.map { ($0.localPath, $0.playlist) }
        if let master = title.masterPlaylist, !master.isEmpty {
            files.append(("master.m3u8", master))
            return (files, "master.m3u8")
        }
        return (files, renditions.first?.localPath ?? "master.m3u8")
    }
}
