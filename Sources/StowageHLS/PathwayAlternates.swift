import StowageProtocol

/// Pairs each file of a media playlist with the same file in another pathway's copy of it, and adds those URLs to a
/// plan's resources as their alternates (tried in order when a file's own URL fails; see ``HLSPathways``).
public enum PathwayAlternates {
    /// A file as the planner names it: its absolute URL and, for a byte range, where the range starts.
    public struct FileKey: Hashable, Sendable {
        public var url: String
        public var offset: Int64?
    }

    /// The files `playlist` names, in order: each segment, after the init section it is the first to use (GAP
    /// segments name nothing to fetch).
    static func files(of playlist: MediaPlaylist) -> [FileKey]? {
        var files: [FileKey] = []
        var maps: Set<Int> = []
        for segment in playlist.segments where !segment.isGap {
            if let map = segment.map, maps.insert(map.line).inserted {
                guard let url = try? URIResolver.resolve(map.uri, against: playlist.url, line: map.line) else {
                    return nil
                }
                files.append(FileKey(url: url, offset: map.byteRange?.offset))
            }
            guard let url = try? URIResolver.resolve(segment.uri, against: playlist.url, line: segment.line) else {
                return nil
            }
            files.append(FileKey(url: url, offset: segment.byteRange?.offset))
        }
        return files
    }

    /// Each file of `primary` and the URL of the same position in `alternate`; nil when the two do not line up
    /// (another count of segments or of init sections, or durations more than half a second apart): a copy that
    /// is not the same media is never an alternate.
    public static func pairs(_ primary: MediaPlaylist, _ alternate: MediaPlaylist) -> [FileKey: String]? {
        let a = primary.segments.filter { !$0.isGap }
        let b = alternate.segments.filter { !$0.isGap }
        guard a.count == b.count, zip(a, b).allSatisfy({ abs($0.duration - $1.duration) <= 0.5 }),
            let mine = files(of: primary), let theirs = files(of: alternate), mine.count == theirs.count
        else { return nil }
        var result: [FileKey: String] = [:]
        for (m, t) in zip(mine, theirs) where m.url != t.url { result[m] = t.url }
        return result
    }

    /// Adds to each resource of `plan` the URLs `pairings` give it, in the pairings' order (the pathways' order),
    /// without repeating one; a resource keeps what it had (DASH BaseURLs) first.
    public static func apply(_ pairings: [[FileKey: String]], to plan: inout ResolvedPlan) {
        guard !pairings.isEmpty else { return }
        for i in plan.resources.indices {
            let r = plan.resources[i]
            let key = FileKey(url: r.url, offset: r.rangeOffset)
            var alternates = r.alternates ?? []
            for pairing in pairings {
                if let url = pairing[key], url != r.url, !alternates.contains(url) { alternates.append(url) }
            }
            plan.resources[i].alternates = alternates.isEmpty ? nil : alternates
        }
    }
}
