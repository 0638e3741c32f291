import Foundation

/// A URL's origin (RFC 6454): scheme, host and port, as `http://host:port` in lower case with the scheme's default
/// port written out. A credential bound to a peer box goes to its origin only: another port on the same host is
/// another program, and `http` beside `https` would send it in clear.
public enum URLOrigin {
    /// nil when `url` is not http(s) with a host.
    public static func of(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = parts.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// Whether `a` and `b` have one origin (false when either has none).
    public static func same(_ a: String, _ b: String) -> Bool {
        guard let x = of(a), let y = of(b) else { return false }
        return x == y
    }
}
