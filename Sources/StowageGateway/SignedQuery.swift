import Foundation
import StowageProtocol

/// The `dev`, `exp` and `sig` of a signed gateway URL, read strictly: each at most once (a repeated one is a
/// forged or mangled URL, and which copy counts would be up to each reader), and an `exp` no further ahead than
/// `stowctl devices sign` ever signs (a year) plus a little clock skew.
struct SignedQuery: Sendable, Equatable {
    var dev: String
    /// `exp` as received (the cache key and the signed text use its digits).
    var exp: String
    var sig: String
    /// The three parameters as received, for carrying into the playlists a signed request is served.
    var raw: String
    /// `exp` in unix seconds.
    var expires: Double

    /// The longest a signed URL may still run: `devices sign --expires` takes at most 366 days (the scheduler's
    /// rule), plus ten minutes for clocks that disagree.
    static let maxLeadSeconds: Double = 366 * 86_400 + 600

    static let names: Set<String> = ["dev", "exp", "sig"]

    /// The signed parameters of `query`: nil when it has not all three; `refused` (400) when one repeats,
    /// `unauthorized` when `exp` is not a time or runs more than a year past `now` (unix seconds).
    static func parse(_ query: String?, now: Double) throws -> SignedQuery? {
        guard let query else { return nil }
        var values: [String: String] = [:]
        var raw: [String] = []
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let name = kv[0].removingPercentEncoding ?? kv[0]
            guard names.contains(name) else { continue }
            guard values[name] == nil else {
                throw GatewayError(.badRequest, .refused, "the signed URL gives '\(name)' more than once")
            }
            let value = kv.count == 2 ? kv[1] : ""
            values[name] = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
            raw.append(String(pair))
        }
        guard let dev = values["dev"], let exp = values["exp"], let sig = values["sig"] else { return nil }
        guard let seconds = Int64(exp), seconds >= 0, Double(seconds) <= DeviceSignature.maxExpires else {
            throw GatewayError.unauthorized("the signed URL's exp is not a time")
        }
        guard Double(seconds) <= now + maxLeadSeconds else {
            throw GatewayError.unauthorized(
                "the signed URL's exp is more than a year ahead: sign it again with `stowctl devices sign`")
        }
        return SignedQuery(dev: dev, exp: exp, sig: sig, raw: raw.joined(separator: "&"), expires: Double(seconds))
    }

    /// The credential it stands for on `path`.
    func credential(path: String) -> DeviceCredential {
        .signed(device: dev, path: path, expires: expires, signature: sig)
    }
}
