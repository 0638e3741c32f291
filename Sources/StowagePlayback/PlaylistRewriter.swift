import StowageProtocol

/// Rewrites an offline playlist for where it is served.
///
/// Offline playlists name content keys `/keys/N` (absolute). Under a prefix (the gateway's `/titles/<key>/`)
/// those become `<prefix>keys/N`; with a query (a signed URL's `dev=…&exp=…&sig=…`) every URI the player
/// fetches next from the title — URI lines and `URI="…"` attributes — carries it too. Only a URI that stays
/// inside the title is touched (``isInsideTitle(_:from:)``): one with a scheme, a scheme-relative `//host/…`, a
/// backslash, an absolute path other than the keys', or `..` climbing out of the title is left alone, so a
/// signature never leaks off the box.
public struct PlaylistRewriter: Sendable, Hashable {
    /// Where the title is served, ending in `/` (`/` for `stowctl play`).
    public var prefix: String
    /// Appended to every local URI (without the `?`), or nil.
    public var query: String?

    /// `prefix` gets a trailing `/` when it lacks one; an empty query counts as none.
    public init(prefix: String = "/", query: String? = nil) {
        self.prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
        self.query = (query?.isEmpty ?? true) ? nil : query
    }

    /// Whether rewriting changes nothing (served as on disk).
    public var isIdentity: Bool { prefix == "/" && query == nil }

    /// The playlist as it should be served; `playlist` is its path in the title (`video/index.m3u8`), which
    /// relative URIs are resolved against.
    public func rewrite(_ text: String, at playlist: String = "") -> String {
        guard !isIdentity else { return text }
        // "\r\n" is one Character in Swift: split on it as on "\n", and write back what the playlist used.
        let separator = text.contains("\r\n") ? "\r\n" : "\n"
        var lines: [String] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = String(line)
            let trimmed = line.trimmedBlanks
            if trimmed.isEmpty {
                // kept as is
            } else if trimmed.hasPrefix("#") {
                line = rewriteAttributes(line, at: playlist)
            } else {
                line = rewriteURI(trimmed, at: playlist)
            }
            lines.append(line)
        }
        return lines.joined(separator: separator)
    }

    /// One URI of the playlist at `playlist` as it should be served.
    public func rewriteURI(_ uri: String, at playlist: String = "") -> String {
        guard isInsideTitle(uri, from: playlist) else { return uri }
        var out = uri
        if prefix != "/", uri.hasPrefix("/keys/") { out = prefix + uri.dropFirst() }
        if let query {
            let (path, fragment) = split(out, at: "#")
            out = path + (path.contains("?") ? "&" : "?") + query + (fragment.map { "#" + $0 } ?? "")
        }
        return out
    }

    /// Rewrites each `URI="…"` attribute of a tag line.
    private func rewriteAttributes(_ line: String, at playlist: String) -> String {
        var out = ""
        var rest = Substring(line)
        while let range = rest.range(of: "URI=\"") {
            out += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            guard let close = rest.firstIndex(of: "\"") else { break }
            out += rewriteURI(String(rest[..<close]), at: playlist)
            rest = rest[close...]
        }
        return out + rest
    }

    /// `uri`, as written in the playlist at `playlist`, names a file of the title: no scheme, not `//host/…`, no
    /// backslash (raw or encoded: some players read it as a slash), an absolute path only for the keys and the
    /// Clear Key endpoint (or anything under `stowctl play`'s `/`), and no `..` that climbs above the title.
    public func isInsideTitle(_ uri: String, from playlist: String = "") -> Bool {
        let uri = BrowserURLText.normalized(uri)
        let path = String(uri.prefix { $0 != "?" && $0 != "#" })
        guard !path.isEmpty, !hasScheme(uri), !uri.hasPrefix("//"), !uri.contains("\\"),
            !path.lowercased().contains("%5c")
        else { return false }
        if path.hasPrefix("/") { return prefix == "/" || path.hasPrefix("/keys/") || path == "/clearkey" }
        var depth = playlist.split(separator: "/", omittingEmptySubsequences: true).count - 1
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            let decoded = part.removingPercentEncoding ?? String(part)
            if decoded == ".." { depth -= 1 } else if decoded != "." && !decoded.isEmpty { depth += 1 }
            if depth < 0 { return false }
        }
        return true
    }

    private func hasScheme(_ uri: String) -> Bool {
        guard let colon = uri.firstIndex(of: ":") else { return false }
        let scheme = uri[..<colon]
        return !scheme.isEmpty && !scheme.contains("/") && !scheme.contains("?")
            && scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
    }

    private func split(_ text: String, at separator: Character) -> (String, String?) {
        guard let i = text.firstIndex(of: separator) else { return (text, nil) }
        return (String(text[..<i]), String(text[text.index(after: i)...]))
    }
}

extension String {
    fileprivate var trimmedBlanks: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
