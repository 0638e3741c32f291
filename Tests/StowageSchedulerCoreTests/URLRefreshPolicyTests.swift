import Testing

@testable import StowageSchedulerCore

@Suite("URL refresh policy")
struct URLRefreshPolicyTests {
    @Test func aFirstRefusalReResolves() {
        var p = URLRefreshPolicy()
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 10) == .reResolve)
        #expect(p.isReResolving("t"))
        // More refusals while it runs wait for it: one re-resolution for all of them.
        #expect(p.fileRefused(token: "t", resource: 2, status: 410, issuedAt: 10) == .awaitReResolution)
        #expect(p.keysRefused(token: "t", status: 401, keyURIs: "k") == .awaitReResolution)
        #expect(p.reResolved("t", now: 20) == URLRefreshPolicy.Waiting(resources: [1, 2], license: true))
        #expect(!p.isReResolving("t"))
    }

    @Test func otherStatusesAreNotRefusalsAReResolutionMends() {
        var p = URLRefreshPolicy()
        #expect(p.fileRefused(token: "t", resource: 1, status: 404, issuedAt: 10) == .fail)
        #expect(p.fileRefused(token: "t", resource: 1, status: nil, issuedAt: 10) == .fail)
        #expect(p.keysRefused(token: "t", status: 500, keyURIs: "k") == .fail)
        #expect(!p.isReResolving("t"))
    }

    @Test func aURLHandedOutBeforeTheLastReResolutionJustGoesOutAgain() {
        var p = URLRefreshPolicy()
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 10) == .reResolve)
        _ = p.reResolved("t", now: 20)
        // Handed out at 15, before the re-resolution at 20: the store has a fresh URL for it already.
        #expect(p.fileRefused(token: "t", resource: 2, status: 403, issuedAt: 15) == .sendAgain)
        #expect(!p.isReResolving("t"))
    }

    @Test func aRefusalAfterAReResolutionWithNoFetchSinceFails() {
        var p = URLRefreshPolicy()
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 10) == .reResolve)
        _ = p.reResolved("t", now: 20)
        // Fresh URLs refused, nothing fetched with them: a real refusal.
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 21) == .fail)
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 20) == .fail, "issued at the same time")
    }

    @Test func progressSinceTheLastReResolutionAllowsAnother() {
        var p = URLRefreshPolicy()
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 10) == .reResolve)
        _ = p.reResolved("t", now: 20)
        p.fetched("t")
        // The URLs expired again after working for a while: re-resolve again, as often as it makes progress.
        #expect(p.fileRefused(token: "t", resource: 5, status: 403, issuedAt: 500) == .reResolve)
        #expect(p.reResolved("t", now: 600).resources == [5])
        #expect(p.fileRefused(token: "t", resource: 6, status: 403, issuedAt: 601) == .fail)
    }

    @Test func aRefusalWhileAReResolutionRunsWaitsEvenWithoutProgress() {
        var p = URLRefreshPolicy()
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 10) == .reResolve)
        _ = p.reResolved("t", now: 20)
        p.fetched("t")
        #expect(p.fileRefused(token: "t", resource: 2, status: 403, issuedAt: 30) == .reResolve)
        #expect(p.fileRefused(token: "t", resource: 3, status: 403, issuedAt: 31) == .awaitReResolution)
    }

    @Test func keysRefusedAgainAfterTheirReResolutionFail() {
        var p = URLRefreshPolicy()
        #expect(p.keysRefused(token: "t", status: 403, keyURIs: "k1") == .reResolve)
        #expect(p.reResolved("t", now: 20).license)
        p.keysReResolved("t", keyURIs: "k2")
        #expect(p.keysRefused(token: "t", status: 403, keyURIs: "k2") == .fail, "the URIs it gave were refused")
        #expect(p.keysRefused(token: "t", status: 403, keyURIs: "k3") == .reResolve, "other URIs: once more")
    }

    @Test func forgettingATitleMakesItsNextRefusalAFirstOne() {
        var p = URLRefreshPolicy()
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 10) == .reResolve)
        _ = p.reResolved("t", now: 20)
        #expect(p.fileRefused(token: "u", resource: 9, status: 403, issuedAt: 10) == .reResolve)
        p.forget("t")
        #expect(p.fileRefused(token: "t", resource: 1, status: 403, issuedAt: 30) == .reResolve)
        #expect(p.isReResolving("u"), "other titles are untouched")
        p.forget("u")
        #expect(!p.isReResolving("u"))
    }
}
