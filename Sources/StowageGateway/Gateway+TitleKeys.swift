import Foundation
import Hummingbird
import StowagePlayback
import StowageProtocol

extension Gateway {
    /// `POST /titles/<key>/clearkey`: a W3C Clear Key license for a DASH title, inside an authorised session
    /// (like `keys/N`: the first key counts the play). A peer was refused before the title was looked up.
    func clearKeyLicense(_ request: Request, token: String, identity: Identity) async throws -> Response {
        _ = try await plays.open(
            identity.principal, token: token, kind: .media, onDisk: true, directory: titlesRootPath + "/" + token,
            now: clock())
        let verdict = try await backend.playable(token: token)
        let body = try? await request.body.collect(upTo: 64 * 1024)
        let backend = self.backend
        return await ClearKeyLicense.answer(body, keyIDs: verdict.clearKeyIDs ?? [:]) { index in
            do { return .success(try await backend.key(token: token, index: index)) } catch {
                return .failure(.init("\(error)"))
            }
        }
    }

    /// `/titles/<key>/keys/N`: only inside an authorised session (the first key counts the play); never to a peer.
    func contentKey(_ index: Int, token: String, identity: Identity) async throws -> Response {
        guard !identity.principal.isPeer else { throw Self.peerRefusal("content keys") }
        _ = try await plays.open(
            identity.principal, token: token, kind: .media, onDisk: true, directory: titlesRootPath + "/" + token,
            now: clock())
        let key = try await backend.key(token: token, index: index)
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: key)))
    }

    /// `/titles/<key>/manifest.json`: the title's plan with each verified file's size and SHA-256, only for a
    /// peer box's credential (another box fills from it); 403 `forbidden` for devices and the admin.
    func peerManifest(_ token: String, identity: Identity) async throws -> Response {
        guard identity.principal.isPeer else {
            throw GatewayError(
                .forbidden, .forbidden,
                "manifest.json is for peer boxes only (a credential from `stowctl devices add NAME --peer`)")
        }
        return Self.json(try await backend.peerManifest(token: token))
    }
}
