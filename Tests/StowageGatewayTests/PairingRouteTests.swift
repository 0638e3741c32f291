import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StowageProtocol
import Testing

@testable import StowageGateway

/// `GET /pair/<code>` and the console's Devices page over the router, with the fake scheduler (code `pair-ok`
/// redeems once for `tv`): a good code is a device session, a second use a page saying so, guessing is throttled,
/// and the Devices page and its API are the admin's.
@Suite struct PairingRouteTests {
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    @Test func aCodeLogsABrowserInOnceAndASecondUseIsToldWhatToDo() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            // A link checker's HEAD does not burn the code.
            try await client.execute(uri: "/pair/pair-ok", method: .head) { response in
                #expect(response.status != .seeOther && response.headers[.setCookie] == nil)
            }
            let cookie = try await client.execute(uri: "/pair/pair-ok", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/")
                return response.headers[.setCookie].map { String($0.split(separator: ";")[0]) }
            }
            let session = try #require(cookie, "a redeemed code sets the session cookie")
            try await client.execute(uri: "/", method: .get, headers: [.cookie: session]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<span class=\"who\">tv"), "logged in as the device")
            }
            try await client.execute(uri: "/console/devices", method: .get, headers: [.cookie: session]) { response in
                #expect(response.status == .forbidden, "a paired device is no admin")
            }
            try await client.execute(uri: "/pair/pair-ok", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.setCookie] == nil)
                let page = String(buffer: response.body)
                #expect(page.contains("used already") && page.contains("Ask the operator for a new one"))
            }
        }
    }

    @Test func theLoginPageSaysWhereASecretOrALinkComesFrom() async throws {
        let fixture = try TrustFixture()
        try await fixture.test { client in
            try await client.execute(uri: "/login", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("Your operator gives each device a secret or a pairing link"))
                #expect(page.contains("<code>stowctl devices add NAME --pair</code>"))
                #expect(page.contains("QR code") && page.contains("no typing"))
            }
        }
    }

    @Test func guessingCodesIsThrottledAsLoginIs() async throws {
        let fixture = try TrustFixture(configuration: {
            .init(
                titlesRoot: $0, adminSecret: "admin-secret",
                throttle: Throttle.Policy(freeFailures: 2, baseDelay: 30, maxDelay: 60))
        })
        try await fixture.test { client in
            for guess in ["a1", "b2", "c3"] {
                try await client.execute(uri: "/pair/\(guess)", method: .get) { response in
                    #expect(response.status == .unauthorized, "\(guess)")
                }
            }
            try await client.execute(uri: "/pair/pair-ok", method: .get) { response in
                #expect(response.status == .tooManyRequests, "even the right code waits once the address is closed")
                #expect(response.headers[.retryAfter] != nil)
                #expect(String(buffer: response.body).contains("did not log you in"))
            }
        }
    }

    @Test func theDevicesPageAndItsAPIAreTheAdminsAndPairWithALinkAndImage() async throws {
        let fixture = try TrustFixture(configuration: {
            .init(titlesRoot: $0, adminSecret: "admin-secret", publicURL: "http://box.lan:8480/")
        })
        try await fixture.test { client in
            for path in ["/console/devices", "/api/devices"] {
                try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer good"]) { r in
                    #expect(r.status == .forbidden, "\(path) for a device")
                }
            }
            let cookie = try #require(try await TrustFixture.login(client, secret: "admin-secret"))
            let token = try await client.execute(uri: "/console/devices", method: .get, headers: [.cookie: cookie]) {
                response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<nav class=\"console-nav\"><a href=\"/\">Library</a>"))
                #expect(page.contains("data-device=\"tv\"") && page.contains("Add a device"))
                #expect(page.contains("src=\"/console-devices.js\"") && !page.contains("<script>"))
                let meta = try #require(page.range(of: "<meta name=\"csrf-token\" content=\""))
                return String(page[meta.upperBound...].prefix { $0 != "\"" })
            }
            try await client.execute(
                uri: "/api/devices", method: .post,
                headers: [.cookie: cookie, .origin: "http://box.lan:8480", Self.csrfHeader: token],
                body: ByteBuffer(string: "{\"name\": \"tablet-3\"}")
            ) { response in
                #expect(response.status == .ok)
                let answer = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(answer?["name"] as? String == "tablet-3")
                #expect(answer?["link"] as? String == "http://box.lan:8480/pair/pair-ok")
                #expect(answer?["expiresAt"] as? String == "2026-11-27T12:00:00Z")
                #expect((answer?["qrImage"] as? String)?.hasPrefix("data:image/png;base64,iVBORw0KGgo") == true)
            }
            try await client.execute(
                uri: "/api/devices", method: .post, headers: [.cookie: cookie, .origin: "http://box.lan:8480"],
                body: ByteBuffer(string: "{\"name\": \"tablet-3\"}")
            ) { response in
                #expect(response.status == .forbidden, "no CSRF token, no device")
            }
        }
    }
}
