import Crypto
import Foundation
import StowageProtocol
import Testing

@testable import StowageLicensing

@Suite("Device URL keys")
struct DeviceURLKeysTests {
    let path = "/titles/abc/master.m3u8"

    @Test func theStoredVerifierAloneSignsNothing() {
        let vault = KeyVault(masterKey: SymmetricKey(size: .bits256))
        let keys = DeviceURLKeys(vault: vault)
        let verifier = DeviceURLKeys.verifier(secret: "s3cret")
        #expect(verifier == Data(SHA256.hash(data: Data("s3cret".utf8))), "the bearer check is unchanged")
        let sig = keys.signature(device: "tv", verifier: verifier, path: path, expires: 2_000_000_000)
        #expect(sig.count == 64 && sig.allSatisfy(Hex.isDigit))
        // Before #29 the verifier was the HMAC key: what a copy of the store could compute.
        let old = Hex.encode(
            HMAC<SHA256>.authenticationCode(
                for: Data(DeviceSignature.message(path: path, expires: 2_000_000_000).utf8),
                using: SymmetricKey(data: verifier)
            ))
        #expect(sig != old)
        // Stable for the same master key, and the same for every path of the title's folder.
        #expect(
            DeviceURLKeys(vault: vault).signature(
                device: "tv", verifier: verifier, path: "/titles/abc/v/1.ts", expires: 2_000_000_000) == sig)
    }

    @Test func bindsMasterKeyDeviceVerifierAndExpiry() {
        let root = SymmetricKey(size: .bits256)
        let keys = DeviceURLKeys(root: root)
        let v = DeviceURLKeys.verifier(secret: "a")
        let sig = keys.signature(device: "tv", verifier: v, path: path, expires: 100)
        #expect(DeviceURLKeys(root: root).signature(device: "tv", verifier: v, path: path, expires: 100) == sig)
        #expect(
            DeviceURLKeys(root: SymmetricKey(size: .bits256)).signature(
                device: "tv", verifier: v, path: path, expires: 100)
                != sig, "another master key")
        #expect(keys.signature(device: "tv2", verifier: v, path: path, expires: 100) != sig, "another device")
        #expect(
            keys.signature(device: "tv", verifier: DeviceURLKeys.verifier(secret: "b"), path: path, expires: 100)
                != sig,
            "a new secret (revoke, add again) voids the old URLs")
        #expect(keys.signature(device: "tv", verifier: v, path: path, expires: 101) != sig)
        #expect(keys.signature(device: "tv", verifier: v, path: "/titles/other/master.m3u8", expires: 100) != sig)
        // The derived key is neither the master key nor the key of another purpose.
        let vault = KeyVault(masterKey: root)
        #expect(vault.derivedKey(purpose: DeviceURLKeys.purpose) != root)
        #expect(vault.derivedKey(purpose: DeviceURLKeys.purpose) != vault.derivedKey(purpose: "other"))
        #expect(DeviceURLKeys(vault: vault).signature(device: "tv", verifier: v, path: path, expires: 100) != sig)
    }
}
