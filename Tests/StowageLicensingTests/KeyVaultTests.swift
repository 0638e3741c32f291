import Crypto
import Foundation
import StowageProtocol
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
        #expect(throws: VaultError.self) {
            try KeyVault(masterKey: SymmetricKey(size: .bits256)).unwrap(wrapped, token: "t1", index: 0)
        }
    }

    @Test func masterKeyFileIsCreatedPrivateAndReused() throws {
        let home = URL(fileURLWithPath: NSTemporaryDirectory() + "stowage-vault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let a = try KeyVault.loadMasterKey(home: home, environment: [:])
        let b = try KeyVault.loadMasterKey(home: home, environment: [:])
        #expect(a == b)
        let mode =
            try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent("master.key").path)[
                .posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: VaultError.self) {
            try KeyVault.loadMasterKey(home: home, environment: ["STOWAGE_MASTER_KEY": "short"])
        }
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
        // Playing while downloading: files may be missing (streamed), keys may not.
        f.streaming = true
        f.filesPresent = false
        #expect(PlaybackPolicy.refusal(f) == nil)
        f.keysPresent = false
        #expect(PlaybackPolicy.refusal(f)?.contains("content key") == true)
    }
}

extension Optional {
    var isSome: Bool { self != nil }
}

@Suite("License policy")
struct LicensePolicyTests {
    @Test func purchaseNeverExpires() {
        let t = LicenseTerms(kind: .purchase, requestedAt: 0)
        #expect(LicensePolicy.refusal(t, LicenseUsage(), now: 1e9, clockRolledBack: false, startingPlay: true) == nil)
        #expect(LicensePolicy.effectiveExpiry(t, LicenseUsage()) == nil)
    }

    @Test func rentalExpiresFromTheRequest() {
        let t = LicenseTerms(kind: .rental, requestedAt: 100, expiresAt: 200)
        #expect(LicensePolicy.refusal(t, LicenseUsage(), now: 199, clockRolledBack: false, startingPlay: true) == nil)
        #expect(
            LicensePolicy.refusal(t, LicenseUsage(), now: 200, clockRolledBack: false, startingPlay: true)
                == "the rental expired")
    }

    @Test func dualExpiryStartsAtFirstPlay() {
        let t = LicenseTerms(kind: .rental, requestedAt: 0, expiresAt: 10_000, playDurationSeconds: 60)
        let unplayed = LicenseUsage()
        #expect(LicensePolicy.effectiveExpiry(t, unplayed) == 10_000)
        let played = LicenseUsage(playCount: 1, firstPlayedAt: 500)
        #expect(LicensePolicy.effectiveExpiry(t, played) == 560)
        #expect(
            LicensePolicy.refusal(t, played, now: 561, clockRolledBack: false, startingPlay: false)?.contains(
                "play duration") == true)
    }

    @Test func playCountAndPlayTime() {
        let t = LicenseTerms(kind: .purchase, requestedAt: 0, playCountLimit: 2, playTimeLimitSeconds: 100)
        #expect(
            LicensePolicy.refusal(t, LicenseUsage(playCount: 1), now: 1, clockRolledBack: false, startingPlay: true)
                == nil)
        #expect(
            LicensePolicy.refusal(t, LicenseUsage(playCount: 2), now: 1, clockRolledBack: false, startingPlay: true)
                == "all 2 plays are used")
        // A play already started may continue (keys) even though it was the last one.
        #expect(
            LicensePolicy.refusal(t, LicenseUsage(playCount: 2), now: 1, clockRolledBack: false, startingPlay: false)
                == nil)
        #expect(
            LicensePolicy.refusal(
                t, LicenseUsage(playCount: 1, playedSeconds: 100), now: 1, clockRolledBack: false, startingPlay: false)
                != nil)
        #expect(LicensePolicy.playsRemaining(t, LicenseUsage(playCount: 1)) == 1)
    }

    @Test func clockRollbackExpiresOnlyTimeLimitedLicenses() {
        let rental = LicenseTerms(kind: .rental, requestedAt: 0, expiresAt: 1e10)
        let purchase = LicenseTerms(kind: .purchase, requestedAt: 0)
        #expect(
            LicensePolicy.refusal(rental, LicenseUsage(), now: 1, clockRolledBack: true, startingPlay: true)?.contains(
                "clock") == true)
        #expect(
            LicensePolicy.refusal(purchase, LicenseUsage(), now: 1, clockRolledBack: true, startingPlay: true) == nil)
    }

    @Test func forcedExpiryAndRenewalDue() {
        var t = LicenseTerms(kind: .purchase, requestedAt: 0, forceExpired: true)
        #expect(
            LicensePolicy.refusal(t, LicenseUsage(), now: 1, clockRolledBack: false, startingPlay: true)?.contains(
                "revoked") == true)
        t = LicenseTerms(kind: .rental, requestedAt: 0, expiresAt: 1000)
        #expect(LicensePolicy.renewalDue(t, LicenseUsage(), now: 950, lead: 100))
        #expect(!LicensePolicy.renewalDue(t, LicenseUsage(), now: 800, lead: 100))
    }
}

@Suite("Not-playable reasons")
struct NotPlayableReasonTests {
    func facts(
        completed: Bool = true, files: Bool = true, keys: Bool = true, deviceOnly: Bool = false, corrupt: Bool = false
    ) -> PlaybackPolicy.Facts {
        PlaybackPolicy.Facts(
            completed: completed, expiresAt: nil, filesPresent: files, keysPresent: keys, now: 0,
            deviceOnly: deviceOnly, corrupt: corrupt)
    }

    @Test func everyConditionHasItsCode() {
        #expect(PlaybackPolicy.reason(facts()) == nil)
        #expect(PlaybackPolicy.reason(facts(completed: false))?.code == .downloading)
        #expect(PlaybackPolicy.reason(facts(deviceOnly: true))?.code == .deviceLicenseRequired)
        #expect(PlaybackPolicy.reason(facts(keys: false))?.code == .keysMissing)
        #expect(PlaybackPolicy.reason(facts(files: false))?.code == .filesMissing)
        #expect(PlaybackPolicy.reason(facts(corrupt: true))?.code == .filesCorrupt)
        // A device-only title lacks no key Stowage could hold: the device's license is what it needs.
        #expect(PlaybackPolicy.reason(facts(keys: true, deviceOnly: true))?.message.contains("device") == true)
        // A license moved away with `export --move` wins over everything but an unfinished copy, and names the box.
        var moved = facts(keys: false)
        moved.transferredTo = "0123456789abcdef"
        #expect(PlaybackPolicy.reason(moved)?.code == .transferred)
        #expect(PlaybackPolicy.reason(moved)?.message.contains("box 0123456789abcdef") == true)
        moved.transferredTo = ""
        #expect(PlaybackPolicy.reason(moved)?.message.contains("another box") == true)
    }

    @Test func licenseReasonsHaveTheirCodes() {
        let rental = LicenseTerms(kind: .rental, requestedAt: 0, expiresAt: 10, playCountLimit: 1)
        let usage = LicenseUsage()
        #expect(
            LicensePolicy.reason(rental, usage, now: 11, clockRolledBack: false, startingPlay: true)?.code
                == .licenseExpired)
        #expect(
            LicensePolicy.reason(rental, usage, now: 1, clockRolledBack: true, startingPlay: true)?.code
                == .clockRolledBack)
        #expect(
            LicensePolicy.reason(
                rental, LicenseUsage(playCount: 1), now: 1, clockRolledBack: false, startingPlay: true)?
                .code == .licenseUsedUp)
        let revoked = LicenseTerms(kind: .purchase, requestedAt: 0, forceExpired: true)
        #expect(
            LicensePolicy.reason(revoked, usage, now: 1, clockRolledBack: false, startingPlay: true)?.code
                == .licenseExpired)
    }
}
