import Foundation
import StowageProtocol
import Testing

@testable import StowageLicensing

/// Terms and usage from a license server, a bundle or the store: absurd numbers are held to ranges the rules can
/// compute with, and the rules never trap on them.
@Suite("License number ranges")
struct LicenseRangesTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func absurdTermsDecodeToWhatTheRulesCanComputeWith() throws {
        let terms = try decode(
            LicenseTerms.self,
            """
            {"kind":"rental","requestedAt":-1e300,"expiresAt":1e300,"playDurationSeconds":1e300,
             "playCountLimit":9223372036854775807,"playTimeLimitSeconds":-5,"forceExpired":false,
             "renewalSuggested":false}
            """)
        #expect(
            terms.requestedAt == LicenseRanges.dates.lowerBound && terms.expiresAt == LicenseRanges.dates.upperBound)
        #expect(terms.playDurationSeconds == OutsideNumbers.maxSeconds)
        #expect(terms.playCountLimit == LicenseRanges.maxCount && terms.playTimeLimitSeconds == nil)
        let usage = try decode(
            LicenseUsage.self, #"{"playCount":-9223372036854775808,"firstPlayedAt":-1e300,"playedSeconds":1e300}"#)
        #expect(usage.playCount == 0 && usage.playedSeconds == OutsideNumbers.maxSeconds)
        #expect(LicensePolicy.playsRemaining(terms, usage) == LicenseRanges.maxCount)
        _ = LicensePolicy.refusal(terms, usage, now: 1e9, clockRolledBack: false, startingPlay: true)
        let roundTrip = try JSONDecoder().decode(LicenseTerms.self, from: JSONEncoder().encode(terms))
        #expect(roundTrip == terms)
    }

    @Test func theRulesHoldOnTheExtremesOfTheTypes() {
        let terms = LicenseTerms(kind: .rental, requestedAt: 0, playDurationSeconds: 10, playCountLimit: .max)
        let usage = LicenseUsage(playCount: .min, firstPlayedAt: 0)
        #expect(LicensePolicy.playsRemaining(terms, usage) != nil)
        #expect(LicensePolicy.refusal(terms, usage, now: 100, clockRolledBack: false, startingPlay: true) != nil)
    }
}
