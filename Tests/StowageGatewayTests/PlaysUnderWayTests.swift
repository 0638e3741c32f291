import Foundation
import StowageProtocol
import Testing

@testable import StowageGateway

/// A license whose plays are used up refuses the next play, not the last one under way.
@Suite("Plays under way")
struct PlaysUnderWayTests {
    let now = Date(timeIntervalSince1970: 2_000_000_000)

    func license(plays: Int?, time: Double? = nil, expiresIn: Double? = nil, expired: Bool) -> LicenseStatus {
        LicenseStatus(
            kind: .rental, requestedAt: nil,
            expiresAt: expiresIn.map { now.addingTimeInterval($0).formatted(.iso8601) }, playsRemaining: plays,
            playTimeRemainingSeconds: time, expired: expired)
    }

    @Test func playsUsedUpLetTheLastPlayGoOn() {
        #expect(!license(plays: 0, expired: true).endsPlaysUnderWay(now: now))
        #expect(!license(plays: 0, time: 60, expiresIn: 3600, expired: true).endsPlaysUnderWay(now: now))
        #expect(!license(plays: 1, expired: false).endsPlaysUnderWay(now: now))
    }

    @Test func anyOtherEndStopsPlaysUnderWay() {
        #expect(license(plays: 0, time: 0, expired: true).endsPlaysUnderWay(now: now))
        #expect(license(plays: 0, expiresIn: -1, expired: true).endsPlaysUnderWay(now: now))
        #expect(license(plays: 2, expiresIn: -1, expired: true).endsPlaysUnderWay(now: now))
        #expect(license(plays: nil, expired: true).endsPlaysUnderWay(now: now))
    }
}
