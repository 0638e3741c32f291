import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageStore

/// The devices `stowage-gateway` serves (`stowctl devices …`) and what the gateway asks of them: secrets (kept as
/// their SHA-256, the verifier), signed URLs (keyed from the master key, see ``DeviceURLKeys``), credential checks,
/// plays counted per device, and title lookups by id or source URL. Pure request answering over its own tables
/// (devices and their plays); a play itself is authorised by the title's side (``TitleDesk/authorizePlay(_:)``).
final class DevicesComponent: SchedulerComponent {
    let name = "devices"
    let context: ComponentContext
    /// Signs and checks device URLs with a key derived from the master key.
    let vault: KeyVault
    /// The one-time pairing codes given and not yet forgotten (``DevicesComponent/pair(_:)``).
    var codes = PairingCodes()
    /// When each device's last sighting was written (monotonic), so a busy device costs one write a minute.
    var lastWritten: [String: Double] = [:]

    init(context: ComponentContext, vault: KeyVault) {
        self.context = context
        self.vault = vault
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .deviceAdd(let name, let peer):
            return .deviceSecret(try add(name, peer: peer == true))
        case .devices:
            return .devices(try list())
        case .deviceRevoke(let name):
            try revoke(name)
            return .ok
        case .deviceSign(let name, let path, let seconds):
            return .signedPath(try sign(device: name, path: path, seconds: seconds))
        case .devicePair(let name):
            return .devicePairing(try pair(name))
        case .pairRedeem(let code):
            return .pairingGrant(try redeem(code))
        case .authenticate(let credential):
            return .principal(try authenticate(credential))
        case .playOn(let token, let device, _):
            return .play(try play(token, on: device))
        case .lookup(let id, let url):
            return .title(try context.desk.status(try lookup(id: id, url: url).token))
        default:
            return nil
        }
    }

    /// Names: 1…64 letters, digits, `.`, `_` or `-`.
    static func validName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)
            }
            && name.allSatisfy(\.isASCII)
    }

    /// `peer`: another box's credential, which reads manifests and files but never plays.
    func add(_ name: String, peer: Bool) throws -> DeviceSecret {
        guard Self.validName(name), name.lowercased() != "admin" else {
            throw TitleError(
                code: .refused,
                message: "a device name is 1 to 64 letters, digits, '.', '_' or '-', not 'admin' "
                    + "(got '\(name.prefix(80))')")
        }
        if let existing = try context.store.device(name), existing.revokedAt == nil {
            throw TitleError(
                code: .refused,
                message: "device \(name) exists; `stowctl devices revoke \(name)` first to give it a new secret")
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        let secret = KeyEncoding.base64url(bytes)
        try context.store.putDevice(
            DeviceRecord(
                name: name, secretHash: DeviceURLKeys.verifier(secret: secret), createdAt: context.clock.now(),
                peer: peer))
        context.logger.info("device added", metadata: ["device": "\(name)", "peer": "\(peer)"])
        return DeviceSecret(name: name, secret: secret)
    }

    private func list() throws -> [DeviceInfo] {
        try context.store.devices().map { d in
            let records = try context.store.plays(device: d.name)
            let plays = try records.map { p in
                DevicePlay(token: p.token, title: try context.store.title(p.token)?.name, at: iso8601(p.at) ?? "")
            }
            var info = DeviceInfo(
                name: d.name, createdAt: iso8601(d.createdAt), revokedAt: iso8601(d.revokedAt), lastPlays: plays)
            info.peer = d.peer ? true : nil
            info.lastSeenAt = iso8601([d.lastSeenAt, records.first?.at].compactMap { $0 }.max())
            return info
        }
    }

    private func revoke(_ name: String) throws {
        guard var device = try context.store.device(name) else { throw Self.unknown(name) }
        guard device.revokedAt == nil else { return }
        device.revokedAt = context.clock.now()
        try context.store.putDevice(device)
        codes.cancel(device: name)
        context.logger.info("device revoked", metadata: ["device": "\(name)"])
    }

    /// `path?dev=NAME&exp=UNIX&sig=HEX`, valid for `seconds` (see ``DeviceSignature``).
    private func sign(device name: String, path: String, seconds: Double) throws -> String {
        guard let device = try context.store.device(name), device.revokedAt == nil else { throw Self.unknown(name) }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
            throw TitleError(
                code: .refused,
                message: "sign a gateway path such as /titles/ID/master.m3u8 (got '\(path.prefix(200))')")
        }
        guard seconds.isFinite, seconds > 0, seconds <= 366 * 86_400 else {
            throw TitleError(code: .refused, message: "--expires must be between 1 s and a year")
        }
        let expires = (context.clock.now() + seconds).rounded(.up)
        let signature = DeviceURLKeys(vault: vault).signature(
            device: name, verifier: device.secretHash, path: path, expires: expires)
        return "\(path)?dev=\(name)&exp=\(Int64(expires))&sig=\(signature)"
    }

    private func authenticate(_ credential: DeviceCredential) throws -> DevicePrincipal {
        switch credential {
        case .secret(let secret):
            let hash = DeviceURLKeys.verifier(secret: secret)
            guard let device = try context.store.devices().first(where: { Self.equal($0.secretHash, hash) }) else {
                throw TitleError(code: .unauthorized, message: "unknown device secret")
            }
            guard device.revokedAt == nil else {
                throw TitleError(code: .unauthorized, message: "device \(device.name) was revoked")
            }
            seen(device.name)
            return DevicePrincipal(device: device.name, peer: device.peer)
        case .signed(let name, let path, let expires, let signature):
            // Whatever a client put in the URL: a bounded number first (no conversion may trap), and the same
            // answer for an unknown device as for a bad signature (names are not revealed).
            guard expires.isFinite, expires >= 0, expires <= DeviceSignature.maxExpires else {
                throw TitleError(code: .unauthorized, message: "the signed URL's exp is not a time")
            }
            guard let device = try context.store.device(name) else {
                throw TitleError(code: .unauthorized, message: "the URL's signature does not match")
            }
            guard device.revokedAt == nil else {
                throw TitleError(code: .unauthorized, message: "device \(name) was revoked")
            }
            guard expires > context.clock.now() else {
                throw TitleError(
                    code: .unauthorized, message: "the signed URL expired at \(iso8601(expires) ?? "\(expires)")")
            }
            let expected = DeviceURLKeys(vault: vault).signature(
                device: name, verifier: device.secretHash, path: path, expires: expires)
            guard Self.equal(Data(expected.utf8), Data(signature.lowercased().utf8)) else {
                throw TitleError(code: .unauthorized, message: "the URL's signature does not match")
            }
            seen(name)
            return DevicePrincipal(device: name, peer: device.peer)
        }
    }

    /// Constant-time comparison (no early exit on the first difference).
    static func equal(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `playOn`: a play of `token` counted for `device` (as `play`; recorded in the device's last plays).
    private func play(_ token: String, on device: String) throws -> PlayAuthorization {
        guard let d = try context.store.device(device), d.revokedAt == nil else { throw Self.unknown(device) }
        guard !d.peer else {
            throw TitleError(
                code: .forbidden, message: "\(device) is a peer box: it fills from this box, it never plays")
        }
        let verdict = try context.desk.authorizePlay(token)
        if verdict.playable { try context.store.recordPlay(device: device, token: token, at: context.clock.now()) }
        return verdict
    }

    /// The title with this id, or the newest one submitted for this source URL (a completed one first).
    private func lookup(id: String?, url: String?) throws -> TitleRecord {
        if let id {
            guard let title = try context.store.title(externalID: id) else {
                throw TitleError(code: .notFound, message: "no title with id '\(id.prefix(200))'")
            }
            return title
        }
        if let url {
            let titles = try context.store.titles(url: url)
            if let title = titles.first(where: { $0.state == .completed }) ?? titles.first { return title }
            throw TitleError(code: .notFound, message: "no title for \(URLRedaction.redacted(url))")
        }
        throw TitleError(code: .refused, message: "lookup needs an id or a url")
    }

    static func unknown(_ name: String) -> TitleError {
        TitleError(code: .notFound, message: "no device named '\(name.prefix(64))'; `stowctl devices list` shows them")
    }
}
