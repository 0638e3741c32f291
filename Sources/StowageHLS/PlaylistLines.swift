/// Splits playlist text into lines, checking the header and the size limits.
public struct PlaylistLines {
    /// Longest line accepted; real playlists stay far below it.
    static let maxLineLength = 64 * 1024
    let lines: [Substring]

    init(_ text: String, url: String) throws(PlaylistError) {
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        var result: [Substring] = []
        for (index, raw) in body.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw
            if line.last == "\r" { line = line.dropLast() }
            guard line.utf8.count <= Self.maxLineLength else {
                throw PlaylistError(
                    .tooLarge, url: url, line: index + 1, "line is longer than \(Self.maxLineLength) bytes")
            }
            result.append(line)
        }
        // The header is a line of its own (RFC 8216 §4.3.1.1): "#EXTM3U<anything>" would be taken for a header here
        // and for an unknown tag by the writers of offline playlists, which would then leave it out.
        guard let first = result.first(where: { !$0.allSatisfy(\.isWhitespace) }), first.hasPrefix("#EXTM3U"),
            first.dropFirst(7).allSatisfy(\.isWhitespace)
        else {
            throw PlaylistError(.malformed, url: url, line: 1, "missing #EXTM3U header: not an HLS playlist")
        }
        lines = result
    }

    /// Splits `#TAG:value` into ("#TAG", "value").
    static func tag(_ line: Substring) -> (name: Substring, value: Substring) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (line[..<colon], line[line.index(after: colon)...])
    }

    /// Whether the text looks like a master playlist (has variant streams).
    public static func isMaster(_ text: String) -> Bool {
        text.contains("#EXT-X-STREAM-INF") && !text.contains("#EXTINF")
    }
}
