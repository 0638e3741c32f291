import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import StowageGateway

/// Guessing, forged signed URLs, session tables and links: what a device of the LAN can try.
@Suite("Gateway credentials")
struct GatewayCredentialTests {
    @Test func badLoginsFromOneAddressAreThrottledWhileAnotherLogsIn() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            let good: HTTPFields = [.authorization: "Bearer good"]
            try await client.execute(uri: "/api/titles", method: .get, headers: good) { r in #expect(r.status == .ok) }
            var statuses: [HTTPResponse.Status] = []
            var retryAfter: String?
            for i in 0..<100 {
                try await client.execute(
                    uri: "/login", method: .post, headers: TrustFixture.form, body: ByteBuffer(string: "secret=bad\(i)")
                ) { response in
                    statuses.append(response.status)
                    if response.status == .tooManyRequests { retryAfter = response.headers[.retryAfter] }
                }
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == .unauthorized }, "a few typos are free")
            #expect(statuses.suffix(90).allSatisfy { $0 == .tooManyRequests })
            #expect(retryAfter.flatMap(Int.init).map { $0 >= 1 } == true, "429 says when to retry")
            #expect(fixture.backend.authentications.withLock { $0 } <= 7, "a flood does not queue the scheduler")
            try await client.execute(
                uri: "/login", method: .post, headers: TrustFixture.form,
                body: ByteBuffer(string: "secret=admin-secret")
            ) { response in
                #expect(response.status == .tooManyRequests, "a throttled address learns nothing of the admin's secret")
            }
            var json = TrustFixture.form
            json[.accept] = "application/json"
            try await client.execute(uri: "/login", method: .post, headers: json, body: ByteBuffer(string: "secret=x"))
            { response in
                #expect(response.status == .tooManyRequests)
                #expect(String(buffer: response.body).contains("try again in"), "the JSON error says when")
            }
            let other = try await AddressedContext.$address.withValue("192.0.2.77") {
                try await TrustFixture.login(client, secret: "good")
            }
            #expect(other != nil, "another address logs in")
            // Bad bearer secrets count the same; a known-good one from that address still passes.
            for _ in 0..<10 {
                try await client.execute(uri: "/api/titles", method: .get, headers: [.authorization: "Bearer x"]) {
                    _ in
                }
            }
            try await client.execute(uri: "/api/titles", method: .get, headers: [.authorization: "Bearer x"]) { r in
                #expect(r.status == .tooManyRequests)
            }
            try await client.execute(uri: "/api/titles", method: .get, headers: good) { r in
                #expect(r.status == .ok, "a secret known good a moment ago still passes")
            }
            fixture.now.advance(3600)
            try await client.execute(uri: "/api/titles", method: .get, headers: [.authorization: "Bearer good"]) { r in
                #expect(r.status == .ok, "open again after a quiet while")
            }
        }
    }

    @Test func aRepeatedBadCredentialIsAnsweredFromTheCache() async throws {
        let fixture = try TrustFixture(configuration: {
            .init(titlesRoot: $0, throttle: .init(freeFailures: 1000))
        })
        try await fixture.test { client in
            for _ in 0..<20 {
                try await client.execute(uri: "/api/titles", method: .get, headers: [.authorization: "Bearer x"]) { r in
                    #expect(r.status == .unauthorized)
                }
            }
            #expect(fixture.backend.authentications.withLock { $0 } == 1)
            fixture.now.advance(5)
            try await client.execute(uri: "/api/titles", method: .get, headers: [.authorization: "Bearer x"]) { _ in }
            #expect(fixture.backend.authentications.withLock { $0 } == 2, "kept a few seconds only")
        }
    }

    @Test func signedURLsRunningPastAYearOrRepeatingAParameterAreRefused() async throws {
        let wall = 1_800_000_000.0
        let fixture = try TrustFixture(wallClock: wall)
        try await fixture.test { client in
            let far = Int64(wall) + 400 * 86_400
            try await client.execute(uri: "/titles/tok/master.m3u8?dev=tv&exp=\(far)&sig=00", method: .get) { r in
                #expect(r.status == .unauthorized)
                #expect(String(buffer: r.body).contains("more than a year ahead"))
            }
            #expect(fixture.backend.authentications.withLock { $0 } == 0, "refused before the scheduler is asked")
            let near = Int64(wall) + 300 * 86_400
            try await client.execute(uri: "/titles/tok/master.m3u8?dev=tv&exp=\(near)&sig=00", method: .get) { r in
                #expect(r.status == .unauthorized, "within the year the signature itself is checked")
                #expect(!String(buffer: r.body).contains("year"))
            }
            #expect(fixture.backend.authentications.withLock { $0 } == 1)
            for query in [
                "dev=tv&exp=\(near)&sig=00&sig=01", "dev=tv&dev=admin&exp=\(near)&sig=00",
                "dev=tv&exp=\(near)&exp=\(far)&sig=00",
            ] {
                try await client.execute(uri: "/titles/tok/master.m3u8?\(query)", method: .get) { r in
                    #expect(r.status == .badRequest, "\(query)")
                    #expect(String(buffer: r.body).contains("more than once"), "\(query)")
                }
            }
        }
    }

    @Test func theAdminsSessionSurvivesAFloodOfDeviceLoginsAndEndsOnTime() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            let admin = try #require(try await TrustFixture.login(client, secret: "admin-secret"))
            for i in 0..<20_000 {
                _ = try await fixture.gateway.authenticator.login(secret: "good", from: "10.1.\(i / 250).\(i % 250)")
            }
            let counts = fixture.gateway.authenticator.sessionCounts
            #expect(counts.devices <= 10_000 && counts.admin == 1)
            let token = try await TrustFixture.csrfToken(client, cookie: admin)
            let headers: HTTPFields = [
                .cookie: admin, .origin: "http://localhost", HTTPField.Name("X-CSRF-Token")!: token,
            ]
            try await client.execute(uri: "/api/titles/tok/pause", method: .post, headers: headers) { response in
                #expect(response.status == .ok, "the admin is still logged in")
            }
            fixture.now.advance(12 * 3600 + 1)
            try await client.execute(uri: "/api/titles", method: .get, headers: [.cookie: admin]) { response in
                #expect(response.status == .unauthorized, "a session ends 12 h after it opened")
            }
        }
    }

    @Test func resolveNeverRedirectsOffTheBoxToAURLOnlyTheRequestNames() async throws {
        let fixture = try TrustFixture(
            configuration: { .init(titlesRoot: $0, fallbackToSource: true) }, backend: FakeBackend(playable: false))
        try await fixture.test { client in
            let auth: HTTPFields = [.authorization: "Bearer good"]
            for unknown in ["https://evil.example/x.m3u8", "//evil.example/x", "javascript:alert(1)"] {
                let encoded = unknown.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                try await client.execute(uri: "/resolve?url=\(encoded)", method: .get, headers: auth) { response in
                    #expect(response.status == .notFound, "\(unknown)")
                    #expect(response.headers[.location] == nil, "\(unknown)")
                }
            }
            let known = "https://cdn.example/movie/master.m3u8".addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/resolve?url=\(known)", method: .get, headers: auth) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == "https://cdn.example/movie/master.m3u8", "its own source")
            }
        }
    }

    @Test func linksAreRelativeOrUnderThePublicURLNeverTheHostHeader() async throws {
        for (publicURL, expected) in [
            (nil, "/titles/movie/master.m3u8"),
            ("https://box.lan:8443/", "https://box.lan:8443/titles/movie/master.m3u8"),
        ] {
            let fixture = try TrustFixture(configuration: { .init(titlesRoot: $0, publicURL: publicURL) })
            try await fixture.test { client in
                // The router test client's requests carry `Host: localhost`.
                let headers: HTTPFields = [.authorization: "Bearer good"]
                try await client.execute(uri: "/resolve?id=movie", method: .get, headers: headers) { response in
                    #expect(response.status == .found)
                    #expect(response.headers[.location] == expected)
                }
            }
        }
    }
}
