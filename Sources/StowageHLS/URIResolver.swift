import Foundation
import StowageProtocol

/// Resolves playlist URIs against the playlist's own URL and refuses what Stowage will not fetch.
public enum URIResolver {
    /// Resolves `uri` (relative or absolute) against `base`. Only http and https are accepted.
    public static func resolve(_ uri: String, against base: String, line: Int? = nil) throws(PlaylistError) -> String {
        guard !uri.contains(where: { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) }) else {
            throw PlaylistError(.refusedURI, url: base, line: line, "URI contains control characters")
        }
        if let plain = plainRelative(uri, against: base) { return plain }
        guard let baseURL = URL(string: base) else {
            throw PlaylistError(.refusedURI, url: base, line: line, "playlist URL is not a valid URL")
        }
        guard
            let resolved = URL(string: uri, relativeTo: baseURL)?.absoluteURL
                ?? URL(
                    string: uri.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? "",
                    relativeTo: baseURL)?.absoluteURL
        else {
            throw PlaylistError(.refusedURI, url: base, line: line, "'\(uri.prefix(80))' is not a valid URI")
        }
        guard let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            // A data: URI may be a key: its data is not repeated.
            let shown = DataURI.isDataURI(uri) ? DataURI.redacted(uri) : String(uri.prefix(80))
            throw PlaylistError(
                .refusedURI, url: base, line: line,
                "'\(shown)' uses scheme '\(resolved.scheme ?? "")': only http and https are fetched")
        }
        guard resolved.host != nil else {
            throw PlaylistError(.refusedURI, url: base, line: line, "'\(uri.prefix(80))' has no host")
        }
        return resolved.absoluteString
    }

    /// The common case resolved without `URL` (a playlist of ten thousand segments spent most of its planning
    /// there): a relative path of unreserved characters (RFC 3986 §2.3) and `/`, without dot segments, against
    /// an http(s) URL whose host, port and path are plain too. Such a reference replaces the base's last path
    /// segment and drops its query and fragment (§5.2.2-5.2.3), which is what `URL` gives. Nil for anything
    /// else, which takes the general path.
    static func plainRelative(_ uri: String, against base: String) -> String? {
        guard isPlainPath(uri.utf8, leadingSlash: false) else { return nil }
        let b = base.utf8
        let schemeEnd: String.Index
        if base.hasPrefix("http://") {
            schemeEnd = b.index(b.startIndex, offsetBy: 7)
        } else if base.hasPrefix("https://") {
            schemeEnd = b.index(b.startIndex, offsetBy: 8)
        } else {
            return nil
        }
        let end = b[schemeEnd...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? b.endIndex
        let pathStart = b[schemeEnd..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
        let authority = b[schemeEnd..<pathStart]
        guard !authority.isEmpty, authority.first != UInt8(ascii: ":"),
            authority.allSatisfy({ isUnreservedOrDigit($0) || $0 == UInt8(ascii: ":") })
        else { return nil }
        guard pathStart < end else { return String(base[..<end]) + "/" + uri }
        guard isPlainPath(b[pathStart..<end], leadingSlash: true),
            let lastSlash = b[pathStart..<end].lastIndex(of: UInt8(ascii: "/"))
        else { return nil }
        return String(base[...lastSlash]) + uri
    }

    /// Bytes of unreserved characters and `/` with no empty, `.` or `..` segment (a leading `/` if asked for).
    private static func isPlainPath(_ bytes: some Collection<UInt8>, leadingSlash: Bool) -> Bool {
        guard let first = bytes.first, (first == UInt8(ascii: "/")) == leadingSlash else { return false }
        var segment = 0  // length of the segment so far
        var dots = 0  // how many of its bytes are dots
        for (i, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "/") {
                if i > 0 && (segment == 0 || segment == dots) { return false }
                segment = 0
                dots = 0
                continue
            }
            guard isUnreservedOrDigit(byte) || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "_") else {
                return false
            }
            segment += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        // The last segment may be empty only in a base path ("/dir/"): its file name is replaced anyway.
        return !(segment > 0 && segment == dots && dots <= 2) && (segment > 0 || leadingSlash)
    }

    private static func isUnreservedOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
