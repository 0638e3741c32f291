import StowageProtocol

/// The one rule for tags copied from a source playlist into an offline one: a copied tag keeps nothing that
/// points off the box. Stowage fetches the files of the tags it knows (segments, maps, keys) and names them
/// locally; any other tag that names a file (`EXT-X-SESSION-DATA:URI=`, `EXT-X-PRELOAD-HINT`,
/// `EXT-X-RENDITION-REPORT`, `EXT-X-CONTENT-STEERING:SERVER-URI=`, `X-ASSET-URI=` …) would send a player to
/// another host, so it is dropped.
enum OfflineTags {
    /// `line` (a `#…` tag) may be copied: no `…URI=` attribute, and no quoted value that a player would read
    /// (``BrowserURLText``) as having a scheme (`x://`, `data:`), as a scheme-relative `//host`, or with a
    /// backslash.
    static func mayCopy(_ line: some StringProtocol) -> Bool {
        guard !line.contains("URI=") else { return false }
        let quoted = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { BrowserURLText.normalized($0.element) }
        return !quoted.contains { value in
            value.hasPrefix("//") || value.contains("\\") || value.contains("://")
                || value.lowercased().hasPrefix("data:")
        }
    }
}
