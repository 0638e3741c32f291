import AsyncHTTPClient
import Foundation
import NIOCore
import StowageFetch
import StowageProtocol

/// The JSON-over-HTTP-POST license API: identity and authorisation ride in the license URL's query string,
/// the requested terms in the body; the answer carries the granted terms (and, optionally, the keys).
///
/// Request body: `{"titleURL": …, "keyURIs": […], "requested": {kind, rentalSeconds, playDurationSeconds,
/// playCount, playTimeSeconds}, "renewal": bool}`.
/// Answer: `{"granted": {kind, rentalSeconds?, expiresAt?, playDurationSeconds?, playCount?, playTimeSeconds?,
/// forceExpired?, renewalSuggested?}, "keys": [base64]?}`.
public struct LicenseAPIRequest: Codable, Sendable {
    public var titleURL: String
    public var keyURIs: [String]
    public var requested: RequestedTerms?
    public var renewal: Bool
}

public struct LicenseAPIAnswer: Codable, Sendable {
    public struct Granted: Codable, Sendable {
        public var kind: LicenseKind
        public var rentalSeconds: Double?
        public var expiresAt: Double?
        public var playDurationSeconds: Double?
        public var playCount: Int?
        public var playTimeSeconds: Double?
        public var forceExpired: Bool?
        public var renewalSuggested: Bool?
    }
    public var granted: Granted
    public var keys: [String]?
}

extension HTTPFetcher {
    /// Acquires (or renews) a title's license: asks the license API when there is one (else grants what
    /// was requested), then fetches the content keys it did not send from their key URIs.
    public func acquireLicense(_ work: LicenseWork) async throws(TaskFailure) -> LicenseGrant {
        let requestedAt = Date().timeIntervalSince1970
        var terms = GrantedTerms(requested: work.terms, at: requestedAt)
        if work.keysOnly == true {
            // A recording met a new key: fetch it; the terms granted before stay (the scheduler ignores these).
            return LicenseGrant(terms: terms, keys: try await fetchKeys(work))
        }
        var keys: [String]?
        if let url = work.licenseURL {
            let answer = try await askLicenseAPI(url, work: work)
            let g = answer.granted
            terms = GrantedTerms(
                kind: g.kind, requestedAt: requestedAt,
                expiresAt: g.expiresAt ?? g.rentalSeconds.map { requestedAt + $0 },
                playDurationSeconds: g.playDurationSeconds, playCount: g.playCount, playTimeSeconds: g.playTimeSeconds,
                forceExpired: g.forceExpired ?? false, renewalSuggested: g.renewalSuggested ?? false)
            keys = answer.keys
        }
        if keys?.count != work.keyURIs.count {
            keys = try await fetchKeys(work)
        }
        return LicenseGrant(terms: terms, keys: keys ?? [])
    }

    /// Every content key of the title: Clear Key ones from their license servers (one request per server),
    /// the others from their key URIs.
    private func fetchKeys(_ work: LicenseWork) async throws(TaskFailure) -> [String] {
        let described = work.keys ?? work.keyURIs.map { PlannedKey(uri: $0, method: "AES-128") }
        var clear: [String: [String]] = [:]
        for k in described where k.keyFormat == "org.w3.clearkey" {
            guard let id = k.keyID else {
                throw TaskFailure(code: .license, message: "a Clear Key #EXT-X-KEY has no KEYID", retryable: false)
            }
            guard !k.uri.isEmpty else {
                throw TaskFailure(
                    code: .license,
                    message:
                        "the MPD signals Clear Key without a license URL (clearkey:Laurl): submit with --license-url",
                    retryable: false)
            }
            clear[k.uri, default: []].append(id)
        }
        var fromServers: [String: [UInt8]] = [:]
        for (server, ids) in clear.sorted(by: { $0.key < $1.key }) {
            let got = try await clearKeys(server: server, keyIDs: ids, headers: work.headers)
            for (id, key) in got { fromServers["\(server)#\(id)"] = key }
        }
        var out: [String] = []
        for k in described {
            if k.keyFormat == "org.w3.clearkey", let key = fromServers["\(k.uri)#\(k.keyID ?? "")"] {
                out.append(Data(key).base64EncodedString())
            } else if DataURI.isDataURI(k.uri) {
                out.append(Data(try Self.inlineKey(k)).base64EncodedString())
            } else {
                let key = try await fetchKey(k.uri, headers: work.headers, bytes: k.keyLength)
                out.append(Data(key).base64EncodedString())
            }
        }
        return out
    }

    private func askLicenseAPI(_ url: String, work: LicenseWork) async throws(TaskFailure) -> LicenseAPIAnswer {
        var req = try request(url, headers: work.headers)
        req.method = .POST
        req.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        let body = LicenseAPIRequest(
            titleURL: work.url, keyURIs: work.keyURIs, requested: work.terms, renewal: work.renewal)
        req.body = .bytes(ByteBuffer(bytes: (try? JSONEncoder().encode(body)) ?? Data()))
        let shown = Self.redacted(url)
        do {
            let (response, _) = try await perform(req, timeout: .seconds(30))
            let data = try await response.body.collect(upTo: 1 << 20)
            let code = Int(response.status.code)
            guard (200..<300).contains(code) else {
                let text = String(decoding: data.readableBytesView.prefix(200), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                let retryable = code >= 500 || code == 408 || code == 429
                throw TaskFailure(
                    code: .license,
                    message:
                        "license server \(shown) \(retryable ? "failed" : "refused the license"): "
                        + "HTTP \(code)\(text.isEmpty ? "" : " (\(text))")",
                    retryable: retryable)
            }
            do {
                return try JSONDecoder().decode(LicenseAPIAnswer.self, from: Data(data.readableBytesView))
            } catch {
                throw TaskFailure(
                    code: .license,
                    message: "license server \(shown) answered something that is not a license: \(error)",
                    retryable: false)
            }
        } catch let f as TaskFailure {
            throw f
        } catch {
            // Unreachable is the network's fault, not the license's: the title waits for the host to answer.
            throw Self.networkFailure(error, url: shown)
        }
    }
}
