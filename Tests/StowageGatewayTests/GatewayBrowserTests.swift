import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import StowageGateway

/// What a browser on another site can make the gateway do: CORS only for listed origins, state-changing cookie
/// requests only with the session's CSRF token from the gateway's own origin, and the page's security headers.
@Suite("Gateway against other sites' pages")
struct GatewayBrowserTests {
    let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    @Test func onlyListedOriginsGetCredentialedCORS() async throws {
        let fixture = try TrustFixture(configuration: {
            .init(titlesRoot: $0, adminSecret: "admin-secret", corsOrigins: ["https://player.lan"])
        })
        try await fixture.test { client in
            for origin in ["https://evil.example", "null", "https://player.lan.evil.example"] {
                let headers: HTTPFields = [.authorization: "Bearer good", .origin: origin]
                try await client.execute(uri: "/api/titles", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.accessControlAllowOrigin] == nil, "\(origin)")
                    #expect(response.headers[.accessControlAllowCredentials] == nil, "\(origin)")
                }
                let preflight: HTTPFields = [.origin: origin, .accessControlRequestMethod: "GET"]
                try await client.execute(uri: "/api/titles", method: .options, headers: preflight) { response in
                    #expect(response.headers[.accessControlAllowOrigin] == nil, "\(origin)")
                }
            }
            let listed: HTTPFields = [
                .authorization: "Bearer good", .origin: "https://player.lan", .range: "bytes=0-1",
            ]
            try await client.execute(uri: "/titles/tok/video/0001.ts", method: .get, headers: listed) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.accessControlAllowOrigin] == "https://player.lan")
                #expect(response.headers[.accessControlAllowCredentials] == "true")
                #expect(response.headers[.accessControlExposeHeaders]?.contains("Content-Range") == true)
            }
            let preflight: HTTPFields = [.origin: "https://player.lan", .accessControlRequestMethod: "GET"]
            try await client.execute(uri: "/titles/tok/master.m3u8", method: .options, headers: preflight) { r in
                #expect(r.status == .noContent)
                #expect(r.headers[.accessControlAllowOrigin] == "https://player.lan")
                #expect(r.headers[.accessControlAllowHeaders]?.lowercased().contains("range") == true)
            }
        }
    }

    @Test func adminPostsNeedTheSessionsTokenFromTheGatewaysOwnOrigin() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            let cookie = try #require(try await TrustFixture.login(client, secret: "admin-secret"))
            let token = try await TrustFixture.csrfToken(client, cookie: cookie)
            #expect(token.count == 64, "the page carries the session's token")
            let own = "http://localhost"  // the router test client's Host
            let refused: [(String, HTTPFields)] = [
                ("no token", [.cookie: cookie, .origin: own]),
                ("a wrong token", [.cookie: cookie, .origin: own, csrfHeader: String(repeating: "0", count: 64)]),
                ("a foreign Origin", [.cookie: cookie, .origin: "https://evil.example", csrfHeader: token]),
                ("a foreign Referer", [.cookie: cookie, .referer: "https://evil.example/x", csrfHeader: token]),
                ("neither Origin nor Referer", [.cookie: cookie, csrfHeader: token]),
            ]
            for (what, headers) in refused {
                try await client.execute(uri: "/api/titles/tok/pause", method: .post, headers: headers) { response in
                    #expect(response.status == .forbidden, "\(what)")
                    #expect(String(buffer: response.body).contains("\"code\":\"forbidden\""), "\(what)")
                }
            }
            for headers: HTTPFields in [
                [.cookie: cookie, .origin: own, csrfHeader: token],
                [.cookie: cookie, .referer: own + "/", csrfHeader: token],
            ] {
                try await client.execute(uri: "/api/titles/tok/pause", method: .post, headers: headers) { response in
                    #expect(response.status == .ok)
                }
            }
            // A bearer caller carries its credential itself: no token needed.
            try await client.execute(
                uri: "/api/titles/tok/resume", method: .post, headers: [.authorization: "Bearer admin-secret"]
            ) { response in #expect(response.status == .ok) }
            // Logging out is state-changing too: POST only, with the token (the page's form sends it as a field).
            try await client.execute(uri: "/logout", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .methodNotAllowed)
            }
            var logout = TrustFixture.form
            logout[.cookie] = cookie
            logout[.origin] = "https://evil.example"
            try await client.execute(
                uri: "/logout", method: .post, headers: logout, body: ByteBuffer(string: "csrf=\(token)")
            ) { response in #expect(response.status == .forbidden) }
            logout[.origin] = own
            try await client.execute(uri: "/logout", method: .post, headers: logout, body: ByteBuffer(string: "")) {
                response in #expect(response.status == .forbidden, "no token")
            }
            try await client.execute(
                uri: "/logout", method: .post, headers: logout, body: ByteBuffer(string: "csrf=\(token)")
            ) { response in #expect(response.status == .seeOther) }
            try await client.execute(uri: "/api/titles", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .unauthorized, "the session ended")
            }
        }
    }

    /// A browser's EME player asks for Clear Key licenses itself, with the cookie and no token: allowed from the
    /// gateway's own pages only.
    @Test func clearKeyLicensesNeedNoTokenButTheGatewaysOwnOrigin() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            let cookie = try #require(try await TrustFixture.login(client, secret: "admin-secret"))
            let body = ByteBuffer(string: #"{"kids":["AAAAAAAAAAAAAAAAAAAAAA"],"type":"temporary"}"#)
            try await client.execute(
                uri: "/titles/tok/clearkey", method: .post,
                headers: [.cookie: cookie, .origin: "https://evil.example"], body: body
            ) { response in #expect(response.status == .forbidden) }
            try await client.execute(
                uri: "/titles/tok/clearkey", method: .post, headers: [.cookie: cookie, .origin: "http://localhost"],
                body: body
            ) { response in
                #expect(response.status == .ok, "\(response.status): \(String(buffer: response.body))")
                #expect(response.headers[.contentType] == "application/json")
                let answer = try JSONDecoder().decode(ClearKeyAnswer.self, from: Data(buffer: response.body))
                // The key of the kid's index (16 bytes of 7), base64url: what FakeBackend's `key` releases.
                let expected = Data(repeating: UInt8(FakeBackend.clearKeyIndex), count: 16).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                #expect(answer.keys.map(\.kid) == ["AAAAAAAAAAAAAAAAAAAAAA"] && answer.keys.map(\.k) == [expected])
                #expect(answer.keys.allSatisfy { $0.kty == "oct" })
            }
        }
    }

    /// A W3C Clear Key license answer: `{"keys": [{"kty", "kid", "k"}], "type"}`.
    struct ClearKeyAnswer: Decodable {
        struct Key: Decodable {
            var kty: String
            var kid: String
            var k: String
        }
        var keys: [Key]
    }

    @Test func aLoginFormFromAnotherOriginIsRefused() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            var headers = TrustFixture.form
            headers[.origin] = "https://evil.example"
            try await client.execute(
                uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: "secret=good")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }

    @Test func pagesCarryTheSecurityHeadersAndNoInlineScript() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            for (uri, headers) in [
                ("/", [HTTPField.Name.authorization: "Bearer good"] as HTTPFields), ("/login", [:]),
                ("/api/titles", [:]), ("/play/tok", [HTTPField.Name.authorization: "Bearer good"] as HTTPFields),
            ] {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    let csp = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"), "\(uri)")
                    #expect(!csp.contains("unsafe-inline") && !csp.contains("http"), "\(uri): \(csp)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin", "\(uri)")
                    let page = String(buffer: response.body)
                    #expect(!page.contains("<script>") && !page.contains("<style>") && !page.contains("style="))
                }
            }
            try await client.execute(uri: "/app.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(String(buffer: response.body).contains("new EventSource('/events')"))
            }
        }
    }
}
