import Foundation
import StowageProtocol
import Synchronization

/// The reference license server of `stowage-origin` (`POST /license?user=U&token=T`), speaking the JSON
/// license API. Its policy file is read on every request, so a test or a demo can change it between
/// acquisitions and renewals:
///
/// ```json
/// {"auth": {"alice": "s3cret"},
///  "default": {"grantKind": "rental", "maxRentalSeconds": 3600},
///  "titles": {"/movie/master.m3u8": {"refuse": false, "playCount": 2, "playDurationSeconds": 60,
///             "playTimeSeconds": 0, "forceExpired": false, "renewalSuggested": false,
///             "failTimes": 2, "failStatus": 500, "delayMs": 0}}}
/// ```
/// Every grant, and every injected failure (`failTimes`), is appended to the grant log as one JSON line.
public final class LicenseServer: Sendable {
    struct Rule: Codable {
        var refuse: Bool?
        var grantKind: String?
        var maxRentalSeconds: Double?
        var playCount: Int?
        var playDurationSeconds: Double?
        var playTimeSeconds: Double?
        var forceExpired: Bool?
        var renewalSuggested: Bool?
        var failTimes: Int?
        var failStatus: Int?
        var delayMs: Int?
    }
    struct Policy: Codable {
        /// W3C Clear Key: key ID (hex) -> key (hex), served at `POST …/clearkey`.
        var clearkeys: [String: String]?
        var auth: [String: String]?
        var `default`: Rule?
        var titles: [String: Rule]?
    }
    struct Requested: Codable {
        var kind: String?
        var rentalSeconds: Double?
        var playDurationSeconds: Double?
        var playCount: Int?
        var playTimeSeconds: Double?
    }
    struct Request: Codable {
        var titleURL: String
        var keyURIs: [String]?
        var requested: Requested?
        var renewal: Bool?
    }

    let policyPath: String?
    let grantLog: AccessLog?
    private let failures = Mutex([String: Int]())

    public init(policyPath: String?, grantLogPath: String?) {
        self.policyPath = policyPath
        grantLog = grantLogPath.map(AccessLog.init(path:))
    }

    /// HLS key delivery: a GET of a key file whose path has a rule in the policy obeys it (refuse, failures,
    /// delay) and is logged as a grant. nil when no rule applies (the file is served as it is).
    func keyDelivery(path: String, uri: String) -> (Int, Data, Int)? {
        guard !path.hasSuffix(".m3u8") else { return nil }  // playlists are keyed by title, not as key files
        let policy = loadPolicy()
        guard let rule = policy.titles?[path] else { return nil }
        let delay = rule.delayMs ?? 0
        if let failure = injectedFailure(rule, key: path) { return (failure.0, failure.1, delay) }
        if rule.refuse == true { return (403, Data("key refused by the license policy\n".utf8), delay) }
        grantLog?.record("{\"key\":\"\(path)\"}")
        return nil
    }

    /// W3C Clear Key: `{"kids": [b64url], "type"}` -> `{"keys": [{"kty": "oct", "kid", "k"}], "type"}`.
    func clearKey(body: Data) -> (Int, Data, Int) {
        let policy = loadPolicy()
        struct Req: Codable {
            var kids: [String]
            var type: String?
        }
        guard let req = try? JSONDecoder().decode(Req.self, from: body) else {
            return (400, Data("not a Clear Key request\n".utf8), 0)
        }
        if policy.default?.refuse == true { return (403, Data("refused by the license policy\n".utf8), 0) }
        var keys: [[String: String]] = []
        for kid in req.kids {
            guard let raw = KeyEncoding.base64urlDecode(kid), let key = policy.clearkeys?[KeyEncoding.hexString(raw)],
                let keyBytes = KeyEncoding.hex(key)
            else { continue }
            keys.append(["kty": "oct", "kid": kid, "k": KeyEncoding.base64url(keyBytes)])
        }
        let answer =
            (try? JSONSerialization.data(
                withJSONObject: ["keys": keys, "type": req.type ?? "temporary"], options: [.sortedKeys])) ?? Data()
        grantLog?.record("{\"clearkey\":\(keys.count)}")
        return (200, answer, 0)
    }

    /// The rule's first `failTimes` requests for `key` fail with `failStatus` (default 500).
    private func injectedFailure(_ rule: Rule, key: String) -> (Int, Data)? {
        guard let times = rule.failTimes, times > 0 else { return nil }
        let n = failures.withLock { counts -> Int in
            counts[key, default: 0] += 1
            return counts[key]!
        }
        guard n <= times else { return nil }
        let status = rule.failStatus ?? 500
        let line: [String: Any] = [
            "at": Date().timeIntervalSince1970, "title": key, "failed": status, "attempt": n, "of": times,
        ]
        if let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) {
            grantLog?.record(String(decoding: data, as: UTF8.self))
        }
        return (status, Data("injected failure \(n) of \(times)\n".utf8))
    }

    private func loadPolicy() -> Policy {
        policyPath.flatMap { FileManager.default.contents(atPath: $0) }.flatMap {
            try? JSONDecoder().decode(Policy.self, from: $0)
        } ?? Policy()
    }

    /// Answers one license request: (HTTP status, body, delay before answering in ms).
    func answer(uri: String, body: Data) -> (Int, Data, Int) {
        let policy = loadPolicy()
        guard let request = try? JSONDecoder().decode(Request.self, from: body) else {
            return (400, Data("the body is not a license request\n".utf8), 0)
        }
        let query = URLComponents(string: uri)?.queryItems ?? []
        let user = query.first { $0.name == "user" }?.value
        if let auth = policy.auth, !auth.isEmpty {
            guard let user, let token = query.first(where: { $0.name == "token" })?.value, auth[user] == token else {
                return (403, Data("unknown user or bad token\n".utf8), 0)
            }
        }
        let key = URL(string: request.titleURL)?.path ?? request.titleURL
        let rule = policy.titles?[key] ?? policy.default ?? Rule()
        let delay = rule.delayMs ?? 0
        if let failure = injectedFailure(rule, key: key) { return (failure.0, failure.1, delay) }
        if rule.refuse == true { return (403, Data("refused by the license policy\n".utf8), delay) }
        let asked = request.requested
        let kind = rule.grantKind ?? asked?.kind ?? "none"
        var rental: Double? = asked?.rentalSeconds
        if kind == "rental" {
            if let cap = rule.maxRentalSeconds { rental = min(rental ?? cap, cap) }
        } else {
            rental = nil
        }
        func lower<T: Comparable>(_ a: T?, _ b: T?) -> T? {
            switch (a, b) {
            case let (x?, y?): min(x, y)
            case (let x?, nil): x
            default: b
            }
        }
        var granted: [String: Any] = ["kind": kind]
        if let rental { granted["rentalSeconds"] = rental }
        if let v = lower(rule.playCount, asked?.playCount) { granted["playCount"] = v }
        if let v = lower(rule.playDurationSeconds, asked?.playDurationSeconds) { granted["playDurationSeconds"] = v }
        if let v = lower(rule.playTimeSeconds, asked?.playTimeSeconds) { granted["playTimeSeconds"] = v }
        if rule.forceExpired == true { granted["forceExpired"] = true }
        if rule.renewalSuggested == true { granted["renewalSuggested"] = true }
        let answer =
            (try? JSONSerialization.data(withJSONObject: ["granted": granted], options: [.sortedKeys])) ?? Data()
        let logLine: [String: Any] = [
            "at": Date().timeIntervalSince1970, "title": key, "user": user ?? "", "renewal": request.renewal ?? false,
            "granted": granted,
        ]
        if let line = try? JSONSerialization.data(withJSONObject: logLine, options: [.sortedKeys]) {
            grantLog?.record(String(decoding: line, as: UTF8.self))
        }
        return (200, answer, delay)
    }
}
