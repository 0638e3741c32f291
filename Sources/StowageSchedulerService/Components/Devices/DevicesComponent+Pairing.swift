import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime

/// Pairing a device without typing its secret (`devices add NAME --pair`, the console's "Add a device"): a one-time
/// code, redeemed by the gateway's `/pair/<code>` for a login session. The secret never leaves the scheduler: the
/// session holds a signed credential on `/` (``PairingGrant``), checked again on every use, so revoking the
/// device ends it.
extension DevicesComponent {
    /// How long a redeemed pairing's session credential is signed for: the gateway's session lifetime (12 hours)
    /// and a minute of slack; the session itself ends first.
    static let grantSeconds: Double = 12 * 3600 + 60

    /// Adds `name` (as `deviceAdd`) and gives it a pairing code instead of showing its secret.
    func pair(_ name: String) throws -> DevicePairing {
        _ = try add(name, peer: false)
        let given = codes.issue(device: name, now: context.clock.monotonic(), wallNow: context.clock.now())
        context.logger.info("pairing code given", metadata: ["device": "\(name)"])
        return DevicePairing(
            name: name, code: given.code, expiresAt: iso8601(given.wallDeadline) ?? "",
            validSeconds: PairingCodes.lifetime)
    }

    /// Checks and burns `code` in one step (the loop answers one request at a time, so two redemptions of the same
    /// code cannot both pass); a bad one is `unauthorized`, saying why and what to do.
    func redeem(_ code: String) throws -> PairingGrant {
        let askAgain =
            "ask the operator for a new pairing link (`stowctl devices add NAME --pair`, or the console's "
            + "Devices page)"
        guard code.count <= 64, code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
        else {
            throw TitleError(code: .unauthorized, message: "this is not a pairing link this box gave; \(askAgain)")
        }
        switch codes.redeem(code, now: context.clock.monotonic()) {
        case .device(let name):
            guard let device = try context.store.device(name), device.revokedAt == nil else {
                throw TitleError(code: .unauthorized, message: "device \(name) was revoked; \(askAgain)")
            }
            seen(name)
            let expires = (context.clock.now() + Self.grantSeconds).rounded(.up)
            let signature = DeviceURLKeys(vault: vault).signature(
                device: name, verifier: device.secretHash, path: "/", expires: expires)
            context.logger.info("paired", metadata: ["device": "\(name)"])
            return PairingGrant(device: name, path: "/", expires: expires, signature: signature)
        case .used(let name):
            throw TitleError(
                code: .unauthorized,
                message: "this pairing link for \(name) was used already (each link logs in one browser, once); "
                    + askAgain)
        case .expired(let name, let deadline):
            throw TitleError(
                code: .unauthorized,
                message: "this pairing link for \(name) expired at \(iso8601(deadline) ?? "-") (links last "
                    + "\(Int(PairingCodes.lifetime / 60)) minutes); \(askAgain)")
        case .canceled(let name):
            throw TitleError(code: .unauthorized, message: "device \(name) was revoked; \(askAgain)")
        case .unknown:
            throw TitleError(
                code: .unauthorized,
                message: "this is not a pairing link this box gave (or the scheduler restarted since); \(askAgain)")
        }
    }

    /// A device was seen (a good credential or a pairing): written at most once a minute per device.
    func seen(_ name: String) {
        let now = context.clock.monotonic()
        if let last = lastWritten[name], now - last < 60 { return }
        lastWritten[name] = now
        do {
            try context.store.touchDevice(name, at: context.clock.now())
        } catch {
            context.logger.warning("could not note a device's last sighting", metadata: ["error": "\(error)"])
        }
    }
}
