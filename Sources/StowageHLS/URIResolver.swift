import Foundation

/// Resolves playlist URIs against the playlist's own URL and refuses what Stowage will not fetch.
public enum URIResolver {
    /// Resolves `uri` (relative or absolute) against `base`. Only http and https are accepted.
    public static func resolve(_ uri: String, against base: String, line: Int? = nil) throws(PlaylistError) -> String {
        guard !uri.contains(where: { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) }) else {
            throw PlaylistError(.refusedURI, url: base, line: line, "URI contains control characters")
        }
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
            throw PlaylistError(
                .refusedURI, url: base, line: line,
                "'\(uri.prefix(80))' uses scheme '\(resolved.scheme ?? "")': only http and https are fetched")
        }
        guard resolved.host != nil else {
            throw PlaylistError(.refusedURI, url: base, line: line, "'\(uri.prefix(80))' has no host")
        }
        return resolved.absoluteString
    }
}
