import Foundation
import StowageProtocol
import Testing

@Suite("Title paths")
struct TitlePathRuleTests {
    /// Names the scheduler gives (download destinations, files to verify).
    @Test func storedNamesStayUnderTheRoot() {
        for good in ["a.ts", "t/video/seg-1.ts", "t/..a/b", "t/é.ts", "t/.hidden"] {
            #expect(TitlePath.isSafe(good, for: .stored), "\(good)")
        }
        let long = String(repeating: "a", count: 1024)
        for bad in ["", "/etc/passwd", "t/../x", "..", ".", "t/./x", "t//x", "t/", "a\nb", "a\u{7f}", "a\0b", long] {
            #expect(!TitlePath.isSafe(bad, for: .stored), "\(bad.debugDescription)")
        }
    }

    /// Names from a request are also refused when hidden or holding a backslash.
    @Test func servedNamesRefuseHiddenPartsAndBackslashes() {
        #expect(TitlePath.isSafe("video/0001.ts", for: .served))
        for bad in [".hidden", "t/..a/b", "video/.x.ts", "a\\b"] {
            #expect(!TitlePath.isSafe(bad, for: .served), "\(bad.debugDescription)")
        }
    }

    @Test func filesAreNamedUnderTheRoot() {
        let root = URL(fileURLWithPath: "/srv/titles")
        #expect(TitlePath.file("t/a.ts", under: root, for: .stored)?.path == "/srv/titles/t/a.ts")
        #expect(TitlePath.file("t/../../etc/passwd", under: root, for: .stored) == nil)
    }

    @Test func requestPathsAreDecodedAndChecked() {
        #expect(TitlePath.relative(rawPath: "/video//0001.ts?x=1") == "video/0001.ts")
        #expect(TitlePath.relative(rawPath: "/") == "")
        for bad in ["a%2F..%2Fb", "%2e%2e/x", "a%0Ab", "a%zz", "a%5Cb"] {
            #expect(TitlePath.relative(rawPath: bad) == nil, "\(bad)")
        }
    }
}
