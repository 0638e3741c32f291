import Foundation
import Testing

@testable import StowageHLS

@Suite("Playlist URIs")
struct URIResolverTests {
    static let bases = [
        "http://127.0.0.1:8080/small/index.m3u8", "https://cdn.example.com/a/b/c/master.m3u8?token=x&y=1#frag",
        "http://EXAMPLE.com/Path/To/list.m3u8", "http://h", "http://h:81", "http://h/", "https://h/dir/",
        "http://h/a.b/c_d~e/f-g.m3u8", "http://h/a/../b/index.m3u8", "http://h/./x.m3u8", "http://h//x.m3u8",
        "http://user@h/x.m3u8", "http://[::1]:80/x.m3u8", "ftp://h/x.m3u8", "http://h/%41/x.m3u8", "http://h:/x.m3u8",
        "http://h/a/...", "http://h/a/..", "http://h?q", "http://h#f",
    ]
    static let uris = [
        "seg-1.ts", "v/seg.ts", "a.b.c", "...", "x/.../y.ts", "~x_y-z.ts", "./seg.ts", "../seg.ts", "a/./b.ts",
        "a/../b.ts", "a//b.ts", "/abs.ts", "//other/x.ts", "http://other/x.ts", "seg.ts?x=1", "seg.ts#t",
        "se g.ts", "s%20.ts", "dir/", ".", "..", "é.ts", "a:b.ts",
    ]

    /// Wherever the shortcut answers, it answers what `URL` does; it declines what it does not cover.
    @Test func theShortcutAgreesWithURL() throws {
        var answered = 0
        for base in Self.bases {
            for uri in Self.uris {
                guard let fast = URIResolver.plainRelative(uri, against: base) else { continue }
                answered += 1
                let general = URL(string: uri, relativeTo: URL(string: base))?.absoluteURL.absoluteString
                #expect(fast == general, "\(uri) against \(base)")
            }
        }
        #expect(answered >= 40, "the shortcut covers the common cases (\(answered))")
        #expect(URIResolver.plainRelative("seg-1.ts", against: "http://127.0.0.1:8080/small/index.m3u8") != nil)
        for declined in ["../seg.ts", "/abs.ts", "seg.ts?x=1", "http://other/x.ts", "se g.ts", "a:b.ts"] {
            #expect(URIResolver.plainRelative(declined, against: "http://h/x.m3u8") == nil, "\(declined)")
        }
        #expect(URIResolver.plainRelative("seg.ts", against: "ftp://h/x.m3u8") == nil)
        #expect(URIResolver.plainRelative("seg.ts", against: "http://h/a/../x.m3u8") == nil)
    }

    /// Every URI resolves as before through the public entry point, shortcut or not.
    @Test func resolutionKeepsItsRules() throws {
        #expect(try URIResolver.resolve("seg.ts", against: "http://h/a/index.m3u8?t=1") == "http://h/a/seg.ts")
        #expect(try URIResolver.resolve("../b/seg.ts", against: "http://h/a/index.m3u8") == "http://h/b/seg.ts")
        #expect(throws: PlaylistError.self) { try URIResolver.resolve("file:///etc/passwd", against: "http://h/x") }
        #expect(throws: PlaylistError.self) { try URIResolver.resolve("seg\n.ts", against: "http://h/x") }
    }
}
