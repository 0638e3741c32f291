import AsyncHTTPClient
import Foundation
import NIOCore
import StowageFetch
import StowageProtocol

/// W3C Clear Key (EME): `POST {"kids": [b64url], "type": "persistent-license"}` to the license server,
/// answered `{"keys": [{"kty": "oct", "kid": b64url, "k": b64url}], "type": …}`.
extension HTTPFetcher {
    struct ClearKeyRequest: Codable {
        var kids: [String]
        var type: String
    }
    struct ClearKeyAnswer: Codable {
        struct Key: Codable {
            var kty: String?
            var kid: String
            var k: String
        }
        var keys: [Key]
        var type: String?
    }

    /// Keys for these key IDs (hex, `0x…`) from a Clear Key license server, by key ID.
    public func clearKeys(server url: String, keyIDs: [String], headers: [Header]) async throws(TaskFailure) -> [String:
        [UInt8]]
    {
        let shown = Self.redacted(url)
        var kids: [String: String] = [:]  // b64url -> hex as given
        for id in keyIDs {
            guard let bytes = KeyEncoding.hex(id), bytes.count == 16 else {
                throw TaskFailure(
                    code: .license, message: "KEYID '\(id.prefix(40))' is not a 16-byte hex key ID", retryable: false)
            }
            kids[KeyEncoding.base64url(bytes)] = id
        }
        var req = try request(url, headers: headers)
        req.method = .POST
        req.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        let body =
            (try? JSONEncoder().encode(ClearKeyRequest(kids: Array(kids.keys).sorted(), type: "persistent-license")))
            ?? Data()
        req.body = .bytes(ByteBuffer(bytes: body))
        do {
            let (response, _) = try await perform(req, timeout: .seconds(30))
            let data = try await response.body.collect(upTo: 1 << 20)
            let code = Int(response.status.code)
            guard (200..<300).contains(code) else {
                let retryable = code >= 500 || code == 408 || code == 429
                throw TaskFailure(
                    code: .license,
                    message: "Clear Key server \(shown) \(retryable ? "failed" : "refused the keys"): HTTP \(code)",
                    retryable: retryable)
            }
            guard let answer = try? JSONDecoder().decode(ClearKeyAnswer.self, from: Data(data.readableBytesView)) else {
                throw TaskFailure(
                    code: .license, message: "Clear Key server \(shown) did not answer with a JSON Web Key set",
                    retryable: false)
            }
            var out: [String: [UInt8]] = [:]
            for key in answer.keys {
                guard let id = kids[key.kid], let k = KeyEncoding.base64urlDecode(key.k), k.count == 16 else {
                    continue
                }
                out[id] = k
            }
            guard out.count == kids.count else {
                throw TaskFailure(
                    code: .license, message: "Clear Key server \(shown) sent \(out.count) of \(kids.count) keys",
                    retryable: false)
            }
            return out
        } catch let f as TaskFailure {
            throw f
        } catch {
            // Unreachable is the network's fault, not the license's: the title waits for the host to answer.
            throw Self.networkFailure(error, url: shown)
        }
    }
}
