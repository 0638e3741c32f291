import Foundation

/// Web origins (`scheme://host[:port]`), as browsers send them in `Origin`: the one rule for reading an
/// operator's `--cors-origin` and `--public-url` and a request's `Referer`.
public enum WebOrigin {
    /// The origin of an http(s) URL, lowercased, without a default port; nil for anything else (`null`,
    /// `file:`, no host).
    public static func of(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let port = components.port.flatMap {
            ($0 == 80 && scheme == "http") || ($0 == 443 && scheme == "https") ? nil : $0
        }
        return "\(scheme)://\(shownHost)" + (port.map { ":\($0)" } ?? "")
    }

    /// `text` when it is exactly an origin (no path, query or user), as `--cors-origin` must be.
    public static func exact(_ text: String) -> String? {
        guard let origin = of(text), text.lowercased() == origin || text.lowercased() == origin + "/" else {
            return nil
        }
        return origin
    }
}
