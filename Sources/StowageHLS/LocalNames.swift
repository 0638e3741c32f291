/// Local file and folder names. Always chosen by Stowage: a name never comes from a URI verbatim,
/// so nothing can leave the title's directory (no `..`, no absolute paths, no control characters).
public enum LocalNames {
    /// Extensions kept from the source URI (so players and tools recognise the file); anything else is `.bin`.
    static let knownExtensions: Set<String> = [
        "ts", "m4s", "mp4", "m4a", "m4v", "aac", "ac3", "ec3", "mp3",
        "vtt", "webvtt", "cmfv", "cmfa", "cmft", "fmp4", "mpd",
    ]

    /// A folder-name-safe label from free text (a language tag, say): `[a-z0-9-]`, at most 24 characters.
    public static func label(_ text: String?, fallback: String) -> String {
        let cleaned = (text ?? "").lowercased().unicodeScalars
            .map {
                ($0.properties.isASCIIHexDigit || ("a"..."z").contains($0) || ("0"..."9").contains($0))
                    ? Character($0) : "-"
            }
        var s = String(cleaned).split(separator: "-").joined(separator: "-")
        if s.count > 24 { s = String(s.prefix(24)) }
        return s.isEmpty ? fallback : s
    }

    /// The extension of a URI's path, if it is one Stowage knows.
    public static func fileExtension(of uri: String) -> String? {
        var path = Substring(uri)
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<q] }
        guard let slash = path.lastIndex(of: "/") else { return ext(path) }
        return ext(path[path.index(after: slash)...])
    }

    private static func ext(_ name: Substring) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        let e = name[name.index(after: dot)...].lowercased()
        return knownExtensions.contains(e) ? e : nil
    }

    /// Picks unique names within one title.
    public struct Allocator: Sendable {
        private var used: Set<String> = []
        public init() {}

        /// `base`, or `base-2`, `base-3` … if taken.
        public mutating func unique(_ base: String) -> String {
            var candidate = base
            var n = 2
            while used.contains(candidate) {
                candidate = "\(base)-\(n)"
                n += 1
            }
            used.insert(candidate)
            return candidate
        }
    }
}
