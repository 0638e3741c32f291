import Crypto
import Foundation
import Testing
@testable import StowageLicensing

@Suite("Key vault and playback policy")
struct KeyVaultTests {
    @Test func wrapsAndBindsToTitleAndIndex() throws {
        let vault = KeyVault(masterKey: SymmetricKey(size: .bits256))
        let key = (0..<16).map { UInt8($0) }
        let wrapped = try vault.wrap(key, token: "t1", index: 0)
        #expect(wrapped.range(of: Data(key)) == nil)
        #expect(try vault.unwrap(wrapped, token: "t1", index: 0) == key)
        #expect(throws: VaultError.self) { try vault.unwrap(wrapped, token: "t2", index: 0) }
        #expect(throws: VaultError.self) { try vault.unwrap(wrapped, token: "t1", index: 1) }
        #expect(throws: VaultError.self) { try KeyVault(masterKey: SymmetricKey(size: .bits256)).unwrap(wrapped, token: "t1", index: 0) }
    }

    @Test func masterKeyFileIsCreatedPrivateAndReused() throws {
        let home = URL(fileURLWithPath: NSTemporaryDirectory() + "stowage-vault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let a = try KeyVault.loadMasterKey(home: home, environment: [:])
        let b = try KeyVault.loadMasterKey(home: home, environment: [:])
        #expect(a == b)
        let mode = try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent("master.key").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: VaultError.self) { try KeyVault.loadMasterKey(home: home, environment: ["STOWAGE_MASTER_KEY": "short"]) }
    }

    @Test func playbackPolicyNamesTheFailingCondition() {
        let ok = PlaybackPolicy.Facts(completed: true, expiresAt: nil, filesPresent: true, keysPresent: true, now: 100)
        #expect(PlaybackPolicy.refusal(ok) == nil)
        var f = ok
        f.expiresAt = 50
        #expect(PlaybackPolicy.refusal(f) == "the license expired")
        f = ok
        f.filesPresent = false
        #expect(PlaybackPolicy.refusal(f)?.contains("missing") == true)
        f = ok
        f.completed = false
        #expect(PlaybackPolicy.refusal(f)?.contains("not completely") == true)
    }
}

extension Optional {
    var isSome: Bool { self != nil }
}
