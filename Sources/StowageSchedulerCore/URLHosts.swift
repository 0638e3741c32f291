import Foundation

/// The host of URLs that mostly share their origin (a title's segments): the `scheme://authority` part is compared
/// with the last one seen, and only a new one is parsed (by `URL`, whose host it returns for the whole URL). Queuing
/// a title of ten thousand segments parsed ten thousand URLs before.
public struct URLHosts {
    private var lastOrigin: Substring?
    private var lastHost: String?

    /// No origin seen yet.
    public init() {}

    /// The host of `url` (nil if it has none), as `URL(string: url)?.host` gives it.
    public mutating func host(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return URL(string: url)?.host }
        let rest = url[schemeEnd.upperBound...]
        let origin = url[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex)]
        if origin == lastOrigin { return lastHost }
        lastOrigin = origin
        lastHost = URL(string: url)?.host
        return lastHost
    }
}
