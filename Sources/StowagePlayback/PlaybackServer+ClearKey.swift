import Foundation
import Hummingbird
import StowageProtocol

/// The W3C Clear Key license endpoint of `stowctl play` (`POST /clearkey`): a player's EME license request
/// `{"kids": [b64url], "type": …}` is answered `{"keys": [{"kty": "oct", "kid", "k"}], "type": "temporary"}`
/// with the keys Stowage acquired for the title, released by the same key provider as `/keys/N` (so only
/// while the license allows). The local MPD's Clear Key ContentProtection names this endpoint.
extension PlaybackServer {
    struct ClearKeyRequest: Decodable {
        var kids: [String]
        var type: String?
    }

    struct ClearKeyAnswer: Encodable {
        struct Key: Encodable {
            var kty = "oct"
            var kid: String
            var k: String
        }
        var keys: [Key]
        var type = "temporary"
    }

    /// Answers one Clear Key license request.
    func clearKeyLicense(_ request: Request) async -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        guard let body = try? await request.body.collect(upTo: 64 * 1024),
            let asked = try? JSONDecoder().decode(ClearKeyRequest.self, from: Data(body.readableBytesView)),
            !asked.kids.isEmpty
        else {
            return Self.text(
                .badRequest, "not a Clear Key license request: expected {\"kids\": [base64url key IDs]}",
                headers: headers)
        }
        var answer = ClearKeyAnswer(keys: [])
        for kid in asked.kids.prefix(64) {
            guard let raw = KeyEncoding.base64urlDecode(kid), let index = clearKeyIDs[KeyEncoding.hexString(raw)]
            else { continue }
            switch await keys(index) {
            case .success(let key):
                answer.keys.append(.init(kid: kid, k: KeyEncoding.base64url(key)))
            case .failure(let refusal):
                return Self.text(.forbidden, refusal.reason, headers: headers)
            }
        }
        guard !answer.keys.isEmpty else {
            return Self.text(.notFound, "this title has none of the key IDs asked for", headers: headers)
        }
        headers[.contentType] = "application/json"
        let data = (try? JSONEncoder().encode(answer)) ?? Data()
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
