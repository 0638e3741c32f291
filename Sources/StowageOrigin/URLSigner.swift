import Crypto
import Foundation
import StowageProtocol

/// Imitates a CDN's token auth, for tests of expiring URLs (`stowage-origin serve --sign-urls TTL`).
///
/// Playlists are served with every URI they reference signed: `exp=<unix seconds>&sig=<hex HMAC-SHA256 of
/// "<absolute path>|<exp>">` is appended to its query. Every other file needs a valid, unexpired signature.
/// The key is random per process, so signed URLs die with the origin that signed them.
public struct URLSigner: Sendable {
    /// How long a signature stays valid after the playlist that carries it was served.
    public let ttl: TimeInterval
    private let key: [UInt8]

    /// A signer with a fresh random key.
    public init(ttl: TimeInterval) {
        self.init(ttl: ttl, key: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }

    /// A signer with a given key (for tests that need the same signatures twice).
    public init(ttl: TimeInterval, key: [UInt8]) {
        self.ttl = ttl
        self.key = key
    }

    // MARK: checking

    /// Why a request for `uri` (path and query, as sent) must be refused with 403, or nil if it may be served.
    /// Playlists need no signature (the entry URL a user submits is unsigned), but a signed one is checked.
    public func refusal(for uri: String, now: Date = Date()) -> String? {
        let path = String(uri.prefix { $0 != "?" && $0 != "#" })
        var expiry: String?, signature: String?
        if let mark = uri.firstIndex(of: "?") {
            let query = uri[uri.index(after: mark)...].prefix { $0 != "#" }
            for item in query.split(separator: "&") {
                if item.hasPrefix("exp=") { expiry = String(item.dropFirst(4)) }
                if item.hasPrefix("sig=") { signature = String(item.dropFirst(4)) }
            }
        }
        if expiry == nil, signature == nil, path.lowercased().hasSuffix(".m3u8") { return nil }
        guard let expiry, let expires = Int(expiry), let signature, let mac = Self.bytes(hex: signature),
            HMAC<SHA256>.isValidAuthenticationCode(
                mac, authenticating: Self.message(path, expires),
                using: SymmetricKey(data: key))
        else { return "URL signature missing or invalid" }
        return now.timeIntervalSince1970 < TimeInterval(expires) ? nil : "URL expired"
    }

    // MARK: signing

    /// `exp=…&sig=…` for an absolute request path, valid until `now + ttl`.
    public func query(forPath path: String, now: Date = Date()) -> String {
        let expires = Int((now.timeIntervalSince1970 + ttl).rounded(.down))
        let mac = HMAC<SHA256>.authenticationCode(for: Self.message(path, expires), using: SymmetricKey(data: key))
        return "exp=\(expires)&sig=" + Hex.encode(mac)
    }

    /// `playlist` (served at request path `path`) with every URI it references signed: plain URI lines and every
    /// `URI="…"` attribute. Relative URIs stay relative; absolute http(s) URIs are signed only when they point at
    /// `host` (the request's `Host` header), other hosts and schemes are left alone.
    public func sign(playlist: String, at path: String, host: String?, now: Date = Date()) -> String {
        let newline = playlist.contains("\r\n") ? "\r\n" : "\n"
        let lines = playlist.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        return lines.map { line -> String in
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { return String(line) }
            if text.hasPrefix("#") { return signAttributes(String(line), base: path, host: host, now: now) }
            return sign(uri: text, base: path, host: host, now: now)
        }.joined(separator: newline)
    }

    /// A tag line with each `URI="…"` attribute value signed.
    private func signAttributes(_ line: String, base: String, host: String?, now: Date) -> String {
        guard line.hasPrefix("#EXT"), line.contains("URI=\"") else { return line }
        var out = "", rest = Substring(line)
        while let found = rest.range(of: "URI=\"") {
            let before = rest[..<found.lowerBound]
            let attributeStart = (before.last ?? out.last).map { $0 == ":" || $0 == "," } ?? false
            out += before + "URI=\""
            rest = rest[found.upperBound...]
            guard let close = rest.firstIndex(of: "\"") else { break }
            let value = String(rest[..<close])
            out += attributeStart ? sign(uri: value, base: base, host: host, now: now) : value
            rest = rest[close...]
        }
        return out + String(rest)
    }

    /// `uri` with `exp` and `sig` added to its query, or unchanged when it is not on this origin.
    private func sign(uri: String, base: String, host: String?, now: Date) -> String {
        guard let path = Self.resolve(uri, against: base, host: host) else { return uri }
        let head = uri.prefix { $0 != "#" }, fragment = uri.dropFirst(head.count)
        let separator = !head.contains("?") ? "?" : (head.hasSuffix("?") || head.hasSuffix("&") ? "" : "&")
        return String(head) + separator + query(forPath: path, now: now) + String(fragment)
    }

    /// The absolute path `uri` resolves to against the playlist at `base`, or nil when it is on another host or
    /// not http(s).
    static func resolve(_ uri: String, against base: String, host: String?) -> String? {
        let reference = uri.prefix { $0 != "?" && $0 != "#" }
        let scheme = reference.prefix { $0.isLetter || $0.isNumber || "+-.".contains($0) }
        let absolute = scheme.first?.isLetter == true && reference.dropFirst(scheme.count).hasPrefix(":")
        if absolute || reference.hasPrefix("//") {
            guard !absolute || ["http", "https"].contains(scheme.lowercased()),
                let parts = URLComponents(string: absolute ? uri : "http:" + uri), let name = parts.host,
                let host, (name + (parts.port.map { ":\($0)" } ?? "")).lowercased() == host.lowercased()
            else { return nil }
            return parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        }
        if reference.hasPrefix("/") { return String(reference) }
        let playlist = base.prefix { $0 != "?" }
        let directory = playlist.lastIndex(of: "/").map { String(playlist[...$0]) } ?? "/"
        return directory + reference
    }

    /// What is signed: the path percent-decoded, with `.` and `..` segments resolved, then `|` and the expiry.
    private static func message(_ path: String, _ expires: Int) -> Data {
        let decoded = path.removingPercentEncoding ?? path
        let rooted = decoded.hasPrefix("/") ? decoded : "/" + decoded
        var segments: [Substring] = []
        for segment in rooted.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if segment == "." { continue }
            if segment == ".." {
                _ = segments.popLast()
                continue
            }
            segments.append(segment)
        }
        return Data(("/" + segments.joined(separator: "/") + "|\(expires)").utf8)
    }

    private static func bytes(hex: String) -> [UInt8]? {
        guard Hex.isHex(hex, bytes: 32) else { return nil }
        return try? Hex.decode(hex)
    }
}
