extension PlaylistRewriter {
    /// A local MPD as it should be served: its Clear Key license URL (`/clearkey`, absolute) and its segment
    /// encryption keys (`keyUriTemplate="/keys/N"`) under the prefix, and
    /// the query on every local URL a player fetches next (`media`, `initialization`, `BaseURL`, `sourceURL`),
    /// since DASH players resolve relative URLs against the MPD's URL without its query. Only URLs inside the title
    /// get it (``isInsideTitle(_:from:)``); nothing else of the document changes. `manifest` is the MPD's path in
    /// the title.
    public func rewriteMPD(_ text: String, at manifest: String = "") -> String {
        guard !isIdentity else { return text }
        let license = prefix + "clearkey" + (query.map { "?" + $0.replacingOccurrences(of: "&", with: "&amp;") } ?? "")
        var out = text.replacingOccurrences(of: ">/clearkey<", with: ">\(license)<")
        out = rewriteValues(out, open: " keyUriTemplate=\"", close: "\"") { key($0, at: manifest) }
        guard query != nil else { return out }
        for attribute in ["media", "initialization", "sourceURL"] {
            out = rewriteValues(out, open: " \(attribute)=\"", close: "\"") { local($0, at: manifest) }
        }
        return rewriteValues(out, open: "<BaseURL>", close: "</BaseURL>") { local($0, at: manifest) }
    }

    /// Every value between `open` and `close` passed through `change`.
    private func rewriteValues(_ text: String, open: String, close: String, _ change: (String) -> String) -> String {
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: open) {
            out += rest[..<start.upperBound]
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: close) else { break }
            out += change(String(rest[..<end.lowerBound]))
            rest = rest[end.lowerBound...]
        }
        return out + rest
    }

    /// A segment-encryption key URL (`sea:CryptoPeriod@keyUriTemplate`): `/keys/N` under the prefix, with the
    /// query, as ``rewriteURI(_:at:)`` does for an HLS key (XML-escaped: `&amp;`).
    private func key(_ uri: String, at manifest: String) -> String {
        let raw = uri.replacingOccurrences(of: "&amp;", with: "&")
        return rewriteURI(raw, at: manifest).replacingOccurrences(of: "&", with: "&amp;")
    }

    /// `uri` with the query appended, when it names a file inside the title (XML-escaped: `&amp;`).
    private func local(_ uri: String, at manifest: String) -> String {
        let raw = uri.replacingOccurrences(of: "&amp;", with: "&")
        guard let query, isInsideTitle(raw, from: manifest) else { return uri }
        return uri + (uri.contains("?") ? "&amp;" : "?") + query.replacingOccurrences(of: "&", with: "&amp;")
    }
}
