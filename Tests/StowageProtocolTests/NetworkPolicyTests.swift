import Foundation
import Testing

@testable import StowageProtocol

@Suite("Network policy")
struct NetworkPolicyTests {
    private func ip(_ text: String) throws -> IPAddress { try #require(IPAddress(text), "\(text) parses") }

    @Test func addressesParseAndPrintInEveryForm() throws {
        #expect(try ip("10.1.2.3").bytes == [10, 1, 2, 3])
        #expect(try ip("[::1]").description == "::1")
        #expect(try ip("fe80::1%eth0").description == "fe80::1")
        #expect(IPAddress("cdn.example.com") == nil && IPAddress("10.1.2") == nil && IPAddress("") == nil)
        #expect(try ip("::ffff:127.0.0.1").effective == ip("127.0.0.1"))
        #expect(try ip("64:ff9b::a9fe:a9fe").effective == ip("169.254.169.254"))
        #expect(try ip("2002:7f00:1::").effective == ip("127.0.0.1"))
        #expect(try ip("::1").embeddedIPv4 == nil && ip("::").embeddedIPv4 == nil)
    }

    @Test func everyAddressFallsInItsClass() throws {
        let expected: [(String, AddressClass.Kind)] = [
            ("8.8.8.8", .reachable(.public)), ("2001:db8::1", .reachable(.public)),
            ("10.0.0.5", .reachable(.private)), ("172.16.0.1", .reachable(.private)),
            ("172.31.255.255", .reachable(.private)), ("172.32.0.1", .reachable(.public)),
            ("192.168.1.1", .reachable(.private)), ("100.64.0.1", .reachable(.private)),
            ("100.128.0.1", .reachable(.public)), ("fd12::1", .reachable(.private)),
            ("127.0.0.1", .reachable(.loopback)), ("127.9.9.9", .reachable(.loopback)),
            ("::1", .reachable(.loopback)), ("::ffff:127.0.0.1", .reachable(.loopback)),
            ("::ffff:10.0.0.1", .reachable(.private)),
        ]
        for (text, kind) in expected { #expect(AddressClass.kind(of: try ip(text)) == kind, "\(text)") }
        for text in [
            "169.254.169.254", "fe80::1", "0.0.0.0", "::", "224.0.0.1", "ff02::1", "255.255.255.255", "240.0.0.1",
            "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a9fe:a9fe", "::ffff:0:a9fe:a9fe",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        ] {
            guard case .alwaysRefused = AddressClass.kind(of: try ip(text)) else {
                Issue.record("\(text) must always be refused")
                continue
            }
        }
        #expect(AddressClass.public < .private && AddressClass.private < .loopback)
    }

    @Test func aTitleReachesItsSourcesClassAndOutward() throws {
        let policy = NetworkPolicy()
        #expect(policy.refusal(of: try ip("93.184.216.34"), reach: .public) == nil)
        let inward = try #require(policy.refusal(of: try ip("10.0.0.5"), reach: .public))
        #expect(inward.contains("10.0.0.5") && inward.contains("private") && inward.contains("public"))
        #expect(policy.refusal(of: try ip("127.0.0.1"), reach: .public) != nil)
        #expect(policy.refusal(of: try ip("127.0.0.1"), reach: .private) != nil)
        #expect(policy.refusal(of: try ip("10.0.0.5"), reach: .private) == nil)
        #expect(policy.refusal(of: try ip("8.8.8.8"), reach: .private) == nil)
        #expect(policy.refusal(of: try ip("127.0.0.1"), reach: .loopback) == nil)
        let metadata = try #require(policy.refusal(of: try ip("169.254.169.254"), reach: .loopback))
        #expect(metadata.contains("link-local") && metadata.contains("169.254.169.254"))
        #expect(policy.refusal(of: try ip("::ffff:127.0.0.1"), reach: .public) != nil)
    }

    @Test func operatorNetworksOpenAndClose() throws {
        let policy = NetworkPolicy(
            allow: try IPNetwork.list(parsing: "10.20.0.0/16, 169.254.10.0/24"),
            deny: try IPNetwork.list(parsing: "10.20.5.0/24,192.168.7.7"))
        #expect(policy.refusal(of: try ip("10.20.1.1"), reach: .public) == nil, "an allowed LAN CDN")
        #expect(policy.refusal(of: try ip("10.21.1.1"), reach: .public) != nil)
        #expect(policy.refusal(of: try ip("169.254.10.9"), reach: .public) == nil, "opened explicitly")
        let denied = try #require(policy.refusal(of: try ip("10.20.5.9"), reach: .loopback))
        #expect(denied.contains("10.20.5.0/24") && denied.contains("--deny-networks"))
        #expect(policy.refusal(of: try ip("192.168.7.7"), reach: .loopback) != nil)
        #expect(policy.refusal(of: try ip("192.168.7.8"), reach: .loopback) == nil)
        #expect(policy.reach(ofSource: try ip("169.254.10.9")) == .private)
        #expect(policy.reach(ofSource: try ip("169.254.9.9")) == .public)
        #expect(policy.reach(ofSource: try ip("127.0.0.1")) == .loopback)
    }

    @Test func onlyAddressesAndLocalhostNamesBringTheLoopbackReach() {
        let policy = NetworkPolicy()
        #expect(policy.acceptedReach(reported: .loopback, source: "http://127.0.0.1:8080/a.m3u8") == .loopback)
        #expect(policy.acceptedReach(reported: .loopback, source: "http://[::1]/a.m3u8") == .loopback)
        #expect(policy.acceptedReach(reported: .loopback, source: "http://localhost/a.m3u8") == .loopback)
        #expect(policy.acceptedReach(reported: .loopback, source: "http://cdn.example/a.m3u8") == .private)
        #expect(policy.acceptedReach(reported: .public, source: "http://cdn.example/a.m3u8") == .public)
        #expect(policy.acceptedReach(reported: .loopback, source: "http://93.184.216.34/a.m3u8") == .public)
        #expect(policy.acceptedReach(reported: .public, source: "http://10.1.1.1/a.m3u8") == .private)
    }

    @Test func rangesParseStrictly() throws {
        #expect(IPNetwork(parsing: "10.0.0.0/8")?.description == "10.0.0.0/8")
        #expect(IPNetwork(parsing: "fd00::/8")?.contains(try ip("fdff::1")) == true)
        #expect(IPNetwork(parsing: "10.0.0.0/8")?.contains(try ip("::ffff:10.9.9.9")) == true)
        #expect(IPNetwork(parsing: "10.0.0.0/8")?.contains(try ip("fd00::1")) == false)
        #expect(IPNetwork(parsing: "172.16.0.0/12")?.contains(try ip("172.20.0.1")) == true)
        #expect(IPNetwork(parsing: "172.16.0.0/12")?.contains(try ip("172.32.0.1")) == false)
        for bad in ["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "cdn.example/8", "10.0.0.0/8/8", "::/129"] {
            #expect(IPNetwork(parsing: bad) == nil, "\(bad)")
        }
        #expect(throws: NetworkListError.self) { try IPNetwork.list(parsing: "10.0.0.0/8,nonsense") }
        let policy = NetworkPolicy(allow: try IPNetwork.list(parsing: "10.0.0.0/8"))
        let decoded = try JSONDecoder().decode(NetworkPolicy.self, from: JSONEncoder().encode(policy))
        #expect(decoded == policy)
    }

    @Test func headersStayWithTheirHosts() {
        let headers = [
            Header(name: "Authorization", value: "Bearer s"), Header(name: "Cookie", value: "c=1"),
            Header(name: "X-Api-Key", value: "k"), Header(name: "User-Agent", value: "Box"),
            Header(name: "Referer", value: "https://site.example/"),
        ]
        let scope = FetchScope(source: "https://origin.example/a/master.m3u8", headerHosts: ["cdn2.example"])
        #expect(scope.headers(headers, for: "https://ORIGIN.example:8443/a/seg.ts") == headers)
        #expect(scope.headers(headers, for: "https://cdn2.example/seg.ts") == headers)
        #expect(scope.headers(headers, for: "http://other.example/seg.ts").map(\.name) == ["User-Agent", "Referer"])
        #expect(scope.headers(headers, for: "http://127.0.0.1/seg.ts").map(\.name) == ["User-Agent", "Referer"])
        #expect(
            scope.headers(headers, for: "http://origin.example/a/seg.ts").map(\.name) == ["User-Agent", "Referer"],
            "never in clear when the source was https")
        #expect(FetchScope().headers(headers, for: "http://any.example/") == headers, "the operator's own fetch")
    }
}
