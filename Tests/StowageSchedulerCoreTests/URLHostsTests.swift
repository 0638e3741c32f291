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
            "http://a.example:8081/v/seg-1.ts", "HTTP://A.EXAMPLE/z.ts",
        ]
        var hosts = URLHosts()
        for url in urls + urls.reversed() {
            let expected = URL(string: url)?.host
            #expect(hosts.host(of: url) == expected, "\(url)")
        }
    }
}
