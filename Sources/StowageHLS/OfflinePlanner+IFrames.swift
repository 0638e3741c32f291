import StowageProtocol

/// The kept video's I-frame playlist (`submit --iframes`). Packagers write its entries as byte ranges of the
/// video's own segments: an entry inside a segment already kept points at that local file with the range moved
/// to it (nothing more is fetched); any other entry is fetched as a file of its own, like any byte range.
extension OfflinePlanner {
    mutating func addIFrames(_ playlist: MediaPlaylist) throws(PlaylistError) {
        let index = renditions.count
        let folder = folders.unique("iframes")
        var lineTarget: [Int: String] = [:]
        var ranges: [Int: ByteRange] = [:]
        var initCount = 0
        for (n, segment) in playlist.segments.enumerated() {
            if let map = segment.map, lineTarget[map.line] == nil {
                let path = try addInitSection(
                    map, before: n, of: playlist, rendition: index, suggested: "\(folder)/init-\(initCount)")
                initCount += 1
                lineTarget[map.line] = relative(path, from: folder)
            }
            let ext = LocalNames.fileExtension(of: segment.uri)
            if segment.isGap {
                lineTarget[segment.line] = "gap-\(padded6(n)).\(ext ?? "bin")"
                continue
            }
            let url = try URIResolver.resolve(segment.uri, against: playlist.url, line: segment.line)
            if let (path, local) = keptRange(url: url, range: segment.byteRange) {
                lineTarget[segment.line] = relative(path, from: folder)
                if let local { ranges[segment.line] = local }
                continue
            }
            // A range of a file the title does not keep: a partial fMP4 fragment has no whole box structure to
            // check; MPEG-TS ranges are whole packets.
            let container: Container = ext == "ts" ? .mpegTS : .other
            let path = add(
                kind: .segment, rendition: index, url: url, range: segment.byteRange,
                suggested: "\(folder)/iframe-\(padded6(n)).\(ext ?? "bin")", container: container,
                encrypted: segment.key?.encryptsWholeSegment ?? false, duration: 0)
            lineTarget[segment.line] = relative(path, from: folder)
        }
        let text = try offlineMediaText(playlist, lineTarget: lineTarget, ranges: ranges)
        iFramesPath = "\(folder)/index.m3u8"
        renditions.append(
            PlannedRendition(kind: .video, sourceURL: playlist.url, localPath: "\(folder)/index.m3u8", playlist: text))
    }

    /// The kept segment file holding `range` of `url`, and the range within that file; nil when no kept file
    /// holds it. A whole-file entry (no range) needs the whole file kept.
    func keptRange(url: String, range: ByteRange?) -> (String, ByteRange?)? {
        for r in resources where r.kind == .segment && r.url == url {
            guard let offset = r.rangeOffset, let length = r.rangeLength else { return (r.localPath, range) }
            guard let range, range.offset >= offset, range.offset + range.length <= offset + length else { continue }
            return (r.localPath, ByteRange(length: range.length, offset: range.offset - offset))
        }
        return nil
    }
}
