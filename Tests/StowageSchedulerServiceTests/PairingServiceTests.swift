import Foundation
import StowageProtocol
import StowageSchedulerService
import Testing

/// One-time pairing codes through the service in-process, on its manual clock: a code logs one browser in once,
/// within ten minutes on the monotonic clock, never after its device is revoked, and never shows the secret.
@Suite struct PairingServiceTests {
    func pair(_ d: ServiceDriver, _ name: String) throws -> DevicePairing {
        guard case .devicePairing(let pairing) = try d.request(.devicePair(name: name)) else {
            throw DriverError("no pairing for \(name)")
        }
        return pairing
    }

    func refusal(_ reply: ReplyBody) -> TitleError? {
        guard case .error(let error) = reply else { return nil }
        return error
    }

    @Test func aCodeLogsInOnceAndItsGrantAuthenticatesTheDevice() throws {
        let d = try ServiceDriver()
        let pairing = try pair(d, "tablet-3")
        #expect(pairing.name == "tablet-3" && pairing.validSeconds == 600)
        #expect(pairing.path == "/pair/\(pairing.code)")
        // 128 random bits in base64url: 22 characters, and two pairings never share one.
        #expect(pairing.code.count == 22 && pairing.code.allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) })
        #expect(try pair(d, "tablet-4").code != pairing.code)
        #expect(pairing.expiresAt == iso(1_800_000_000 + 600))

        guard case .pairingGrant(let grant) = try d.request(.pairRedeem(code: pairing.code)) else {
            throw DriverError("the code was not redeemed")
        }
        #expect(grant.device == "tablet-3" && grant.path == "/")
        #expect(try d.request(.authenticate(grant.credential)) == .principal(DevicePrincipal(device: "tablet-3")))

        let again = refusal(try d.request(.pairRedeem(code: pairing.code)))
        #expect(
            again?.code == .unauthorized && again?.message.contains("was used already") == true,
            "\(String(describing: again))")
        #expect(again?.message.contains("ask the operator for a new pairing link") == true)
        let unknown = refusal(try d.request(.pairRedeem(code: String(repeating: "A", count: 22))))
        #expect(unknown?.code == .unauthorized && unknown?.message.contains("not a pairing link this box gave") == true)
        #expect(refusal(try d.request(.pairRedeem(code: "../../etc")))?.code == .unauthorized)

        // The device exists as any other, seen when it paired; adding it again is refused as for `devices add`.
        guard case .devices(let devices) = try d.request(.devices) else { throw DriverError("no device list") }
        #expect(devices.first { $0.name == "tablet-3" }?.lastSeenAt == iso(1_800_000_000))
        #expect(devices.first { $0.name == "tablet-4" }?.lastSeenAt == nil)
        #expect(refusal(try d.request(.devicePair(name: "tablet-3")))?.code == .refused)
        #expect(refusal(try d.request(.devicePair(name: "admin")))?.code == .refused)
    }

    @Test func aCodeExpiresAfterTenMinutesOnTheMonotonicClock() throws {
        let d = try ServiceDriver()
        let early = try pair(d, "tv")
        let late = try pair(d, "radio")
        // The wall clock set back two hours (an NTP step, a wrong RTC) gives a code no more time.
        d.clock.stepWall(-7200)
        d.clock.advance(599)
        guard case .pairingGrant = try d.request(.pairRedeem(code: early.code)) else {
            throw DriverError("a code 599 s old was refused")
        }
        d.clock.advance(1)
        let expired = refusal(try d.request(.pairRedeem(code: late.code)))
        #expect(expired?.code == .unauthorized, "\(String(describing: expired))")
        #expect(expired?.message.contains("expired at \(iso(1_800_000_000 + 600))") == true)
    }

    @Test func revokingTheDeviceStopsItsCodeAndItsGrant() throws {
        let d = try ServiceDriver()
        let first = try pair(d, "tv")
        guard case .pairingGrant(let grant) = try d.request(.pairRedeem(code: first.code)) else {
            throw DriverError("not redeemed")
        }
        let second = try pair(d, "radio")
        #expect(try d.request(.deviceRevoke(name: "tv")) == .ok)
        #expect(try d.request(.deviceRevoke(name: "radio")) == .ok)
        #expect(refusal(try d.request(.authenticate(grant.credential)))?.message == "device tv was revoked")
        let revoked = refusal(try d.request(.pairRedeem(code: second.code)))
        #expect(revoked?.code == .unauthorized && revoked?.message.hasPrefix("device radio was revoked") == true)
    }

    @Test func aDeviceIsSeenWhenItsCredentialIsCheckedAtMostOnceAMinute() throws {
        let d = try ServiceDriver()
        guard case .deviceSecret(let secret) = try d.request(.deviceAdd(name: "tv")) else {
            throw DriverError("not added")
        }
        func seen() throws -> String? {
            guard case .devices(let devices) = try d.request(.devices) else { throw DriverError("no device list") }
            return devices.first?.lastSeenAt
        }
        #expect(try seen() == nil)
        _ = try d.request(.authenticate(.secret(secret.secret)))
        #expect(try seen() == iso(1_800_000_000))
        d.clock.advance(30)
        _ = try d.request(.authenticate(.secret(secret.secret)))
        #expect(try seen() == iso(1_800_000_000), "a second check within the minute writes nothing")
        d.clock.advance(31)
        _ = try d.request(.authenticate(.secret(secret.secret)))
        #expect(try seen() == iso(1_800_000_061))
    }

    func iso(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
