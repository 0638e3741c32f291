import Foundation
import StowageProtocol

/// The `http://host:port` part of URLs that an ``OriginConnection`` can serve, and each URL's request target.
struct Origin: Hashable, Sendable {
    /// Host to connect to (an IPv6 address without its brackets).
    let host: String
    let port: Int
    /// `host[:port]` as written in the URL: the `Host` header.
    let authority: String
    /// `http://authority/`: the URLs served start with it (as written, case included).
    let prefix: String

    /// The origin of a plain `http://` URL with a host and no user information; nil for any other URL.
    init?(of url: String) {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@"), let parsed = URL(string: url), let host = URLHost.of(url)
        else { return nil }
        self.host = host
        port = parsed.port ?? 80
        self.authority = String(authority)
        prefix = "http://\(authority)/"
    }

    /// The request target (`/path?query`) of `url` on this origin: nil when `url` is not under ``prefix`` or holds
    /// a byte a request line cannot carry (a space, a control character, non-ASCII), which the general client
    /// deals with instead. The fragment is not sent.
    func target(of url: String) -> String? {
        guard url.hasPrefix(prefix) else { return nil }
        var target = url.dropFirst(prefix.count - 1)
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return nil }
        return String(target)
    }
}
