import StowageProtocol
import Testing

@Suite("Host allow-list")
struct HostAllowListTests {
    @Test func matchesHostsAndDomainsOnly() {
        let list = HostAllowList(parsing: "cdn.example.com, *.media.example.org,10.0.0.5")
        #expect(list.refusal("https://cdn.example.com/a.m3u8") == nil)
        #expect(list.refusal("https://CDN.example.com:8443/a.m3u8") == nil, "case and port do not matter")
        #expect(list.refusal("https://eu.media.example.org/a.ts") == nil)
        #expect(list.refusal("http://10.0.0.5/k.key") == nil)
        #expect(
            list.refusal("https://evil.com/cdn.example.com/a.ts")?.contains("host evil.com is not on the allow-list")
                == true)
        #expect(list.refusal("https://cdn.example.com.evil.com/a.ts") != nil, "a suffix of the name is not the host")
        #expect(list.refusal("https://media.example.org.evil/a.ts") != nil)
        #expect(list.refusal("not a url") != nil)
    }
}
