extension PlaylistRewriter {
    /// A local MPD as it should be served: its Clear Key license URL (`/clearkey`, absolute) under the prefix, and
    /// the query on every local URL a player fetches next (`media`, `initialization`, `BaseURL`, `sourceURL`),
    /// since DASH players resolve relative URLs against the MPD's URL without its query. URLs with a scheme are
    /// left alone; nothing else of the document changes.
    public func rewriteMPD(_ text: String) -> String {
        guard !isIdentity else { return text }
        var out = text.replacingOccurrences(of: ">/clearkey<", with: ">" + local("\(prefix)clearkey") + "<")
        for attribute in ["media", "initialization", "sourceURL"] {
            out = rewriteValues(out, open: " \(attribute)=\"", close: "\"")
        }
        return rewriteValues(out, open: "<BaseURL>", close: "</BaseURL>")
    }

    /// Every value between `open` and `close` with the query appended.
    private func rewriteValues(_ text: String, open: String, close: String) -> String {
        guard query != nil else { return text }
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: open) {
            out += rest[..<start.upperBound]
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: close) else { break }
            out += local(String(rest[..<end.lowerBound]))
            rest = rest[end.lowerBound...]
        }
        return out + rest
    }

    /// `uri` with the query appended, unless it names another host (a scheme).
    private func local(_ uri: String) -> String {
        guard let query, !uri.isEmpty, !uri.contains("://") else { return uri }
        return uri + (uri.contains("?") ? "&amp;" : "?") + query.replacingOccurrences(of: "&", with: "&amp;")
    }
}
