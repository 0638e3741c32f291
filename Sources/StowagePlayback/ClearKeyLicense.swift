import Foundation
import Hummingbird
import StowageProtocol

/// The W3C Clear Key license endpoint of a served title (`stowctl play`'s `POST /clearkey`, the gateway's
/// `POST /titles/<key>/clearkey`): a player's EME license request `{"kids": [b64url], "type": …}` is answered
/// `{"keys": [{"kty": "oct", "kid", "k"}], "type": "temporary"}` with the keys Stowage acquired for the title,
/// each released by the caller's key provider (so only while the license allows). The local MPD's Clear Key
/// ContentProtection names this endpoint.
public enum ClearKeyLicense {
    struct Request: Decodable {
        var kids: [String]
        var type: String?
    }

    struct Answer: Encodable {
        struct Key: Encodable {
            var kty = "oct"
            var kid: String
            var k: String
        }
        var keys: [Key]
        var type = "temporary"
    }

    /// The answer to a license request `body`. `keyIDs`: key ID (32 lowercase hex digits) -> key index;
    /// `key`: the key of an index, or why it is refused.
    public static func answer(
        _ body: ByteBuffer?, keyIDs: [String: Int], key: (Int) async -> Result<[UInt8], PlaybackServer.Refusal>
    ) async -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        guard let body, let asked = try? JSONDecoder().decode(Request.self, from: Data(body.readableBytesView)),
            !asked.kids.isEmpty
        else {
            return PlaybackServer.text(
                .badRequest, "not a Clear Key license request: expected {\"kids\": [base64url key IDs]}",
                headers: headers)
        }
        var answer = Answer(keys: [])
        for kid in asked.kids.prefix(64) {
            guard let raw = KeyEncoding.base64urlDecode(kid), let index = keyIDs[KeyEncoding.hexString(raw)] else {
                continue
            }
            switch await key(index) {
            case .success(let bytes): answer.keys.append(.init(kid: kid, k: KeyEncoding.base64url(bytes)))
            case .failure(let refusal): return PlaybackServer.text(.forbidden, refusal.reason, headers: headers)
            }
        }
        guard !answer.keys.isEmpty else {
            return PlaybackServer.text(.notFound, "this title has none of the key IDs asked for", headers: headers)
        }
        headers[.contentType] = "application/json"
        let data = (try? JSONEncoder().encode(answer)) ?? Data()
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
