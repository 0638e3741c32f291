import Foundation

/// The host a URL names as a connection uses it: IPv6 brackets removed (`[::1]` → `::1`), its spelling kept
/// (an HTTP client looks its address overrides up by the URL's spelling). Written once for the fetcher, the batch
/// connection and the address policy.
public enum URLHost {
    /// nil when `url` has no host.
    public static func of(_ url: String) -> String? {
        guard var host = URL(string: url)?.host, !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }
}
