import Foundation
import StowageSchedulerCore
import Testing

@Suite("Hosts of a title's URLs")
struct URLHostsTests {
    /// Whatever the order and mix of origins, each answer is URL's own.
    @Test func everyAnswerIsURLs() {
        let urls = [
            "http://a.example:8080/v/seg-1.ts", "http://a.example:8080/v/seg-2.ts?sig=1", "http://b.example/x.ts",
            "http://a.example:8080/v/seg-3.ts", "https://user@c.example/k", "http://[::1]:9/x.ts", "http://[::1]:9/y",
            "not a url", "file:///etc/passwd", "http://a.example:8080?q", "http://a.example:8080#f",
            "http://a.example:8081/v/seg-1.ts", "HTTP://A.EXAMPLE/z.ts", "urn:x://h.example/y",
            "http://a.example:8080/r?u=https://other.example/b", "http:/a.example/x", "a.example:80/x",
            "http://é.example/x.ts", "http://e\u{301}.example/x.ts", "mailto:a@b.example", "http://", "://x",
        ]
        var hosts = URLHosts()
        for url in urls + urls.reversed() {
            let expected = URL(string: url)?.host
            #expect(hosts.host(of: url) == expected, "\(url)")
        }
    }
}
