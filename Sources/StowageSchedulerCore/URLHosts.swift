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
        // Bytes, not Characters: the scheme's "://" and the end of the authority are ASCII.
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            return URL(string: url)?.host
        }
        let authority = bytes.index(colon, offsetBy: 3)
        let end =
            bytes[authority...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }
            ?? bytes.endIndex
        let origin = url[..<end]
        if let lastOrigin, origin.utf8.elementsEqual(lastOrigin.utf8) { return lastHost }
        lastOrigin = origin
        lastHost = URL(string: url)?.host
        return lastHost
    }
}
