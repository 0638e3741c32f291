import StowageProtocol
import Testing

/// Only a clear title without license limits may become one file: every limit and any encryption is a refusal
/// naming it, from a status (`stowctl remux`) and from a submit's terms (`submit --file`) alike.
@Suite struct SingleFileClearanceTests {
    static func status(license: LicenseStatus?, protected: Bool = false) -> TitleStatus {
        var s = TitleStatus(
            token: "t", url: "https://origin.example/m.m3u8", name: nil, state: .completed, progress: 1,
            bytesDownloaded: 0, bytesExpected: 0, segmentsDone: 0, segmentsTotal: 0, requestedAt: nil,
            startedAt: nil, endedAt: nil, license: license, localPlaylist: nil, playableOffline: true, error: nil)
        if protected {
            s.protection = TitleProtection(scheme: "cbcs", systems: [], kids: [], licenseUrls: [], deviceOnly: false)
        }
        return s
    }

    @Test func aClearTitleWithoutLimitsMayBecomeOneFile() {
        #expect(SingleFileClearance(status: Self.status(license: nil)).refusal == nil)
        let purchase = LicenseStatus(kind: .purchase, requestedAt: nil, expiresAt: nil, expired: false)
        #expect(SingleFileClearance(status: Self.status(license: purchase)).refusal == nil)
        #expect(SingleFileClearance(terms: RequestedTerms(kind: .purchase), operatorKeys: false).refusal == nil)
        #expect(SingleFileClearance(terms: nil, operatorKeys: false).refusal == nil)
    }

    @Test func everyLimitAndEncryptionIsNamed() throws {
        let rental = LicenseStatus(
            kind: .rental, requestedAt: nil, expiresAt: "2030-01-01T00:00:00Z", playDurationSeconds: 3600,
            playsRemaining: 3, playTimeRemainingSeconds: 60, expired: false)
        let refusal = try #require(SingleFileClearance(status: Self.status(license: rental, protected: true)).refusal)
        #expect(refusal.code == .refused)
        for words in [
            "one file would outlive its license", "encrypted", "rental", "play duration", "number of plays",
            "total play time",
        ] {
            #expect(refusal.message.contains(words), "\(words): \(refusal.message)")
        }
        let playCount = SingleFileClearance(terms: RequestedTerms(kind: .purchase, playCount: 2), operatorKeys: false)
        #expect(playCount.refusal?.message.contains("number of plays") == true)
        #expect(playCount.refusal?.message.contains("rental") == false)
        let keys = SingleFileClearance(terms: nil, operatorKeys: true)
        #expect(keys.refusal?.message.contains("encrypted") == true)
        let rented = SingleFileClearance(
            terms: RequestedTerms(kind: .rental, rentalSeconds: 86_400), operatorKeys: false)
        #expect(rented.refusal?.message.contains("rental") == true)
    }
}
