import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// What a device on the LAN, or someone who can write into a title's folder, must not get from the gateway
/// (issue #40): host paths, files planted as hard or symbolic links, a folder swapped for a link, event streams
/// without end, and segments of a title that can no longer be played.
@Suite("Gateway against hostile input", .serialized)
struct GatewayHostileTests {
    let serving = GatewayServingTests()

    @Test func devicesSeeNoHostPath() throws {
        let h = try Harness(name: "gw-paths")
        let (token, gateway, auth) = try serving.servedTitle(h)
        let list = try serving.fetch(gateway + "/api/titles", headers: [auth], in: h)
        #expect(list.status == 200)
        let text = String(decoding: list.body, as: UTF8.self)
        #expect(!text.contains(h.home.path), "a host path in /api/titles: \(text)")
        let titles = try #require(try JSONSerialization.jsonObject(with: list.body) as? [[String: Any]])
        let title = try #require(titles.first { $0["token"] as? String == token })
        #expect(title["localPlaylist"] as? String == "/titles/\(token)/master.m3u8", "the gateway's own path")
        #expect(title["entry"] as? String == "/titles/\(token)/master.m3u8")
        let page = try serving.fetch(gateway + "/", headers: [auth], in: h)
        #expect(page.status == 200 && !String(decoding: page.body, as: UTF8.self).contains(h.home.path))
        // `stowctl status` on the box itself keeps the contract's absolute path.
        #expect(try h.status(token).localPlaylist?.hasPrefix(h.home.path) == true)
    }

    @Test func onlyFilesWithOneLinkAndNoSymbolicLinkAreServed() throws {
        let h = try Harness(name: "gw-links")
        let (token, gateway, auth) = try serving.servedTitle(h)
        let folder = h.home.appendingPathComponent("titles/\(token)")
        let segments = try serving.segments(token, in: h).map(\.path)
        let (first, second) = (try #require(segments.first), try #require(segments.last))
        // Planted: a hard link to a file outside the folder, a hard link to a segment, a symbolic link to one.
        let secret = h.root.appendingPathComponent("secret.ts")
        try Data(repeating: 7, count: 4096).write(to: secret)
        try FileManager.default.linkItem(at: secret, to: folder.appendingPathComponent("planted.ts"))
        try FileManager.default.linkItem(
            at: folder.appendingPathComponent(second), to: h.root.appendingPathComponent("second-copy.ts"))
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("alias.ts"), withDestinationURL: folder.appendingPathComponent(first))
        // Through the router (no play yet, HEAD), then on the hot path (a play under way, plain GET).
        for method in ["HEAD", "GET"] {
            for name in ["planted.ts", second, "alias.ts"] {
                let answer = try serving.fetch(gateway + "/titles/film/" + name, headers: [auth], method: method, in: h)
                #expect(answer.status == 404, "\(method) \(name): \(answer.status)")
            }
        }
        #expect(try serving.fetch(gateway + "/titles/film/" + first, headers: [auth], in: h).status == 200)
        for name in ["planted.ts", second, "alias.ts"] {
            let answer = try serving.fetch(gateway + "/titles/film/" + name, headers: [auth], in: h)
            #expect(answer.status == 404, "during a play, \(name): \(answer.status), \(answer.body.count) B")
        }
        // The segment's own second name gone, it has one link again and is served.
        try FileManager.default.removeItem(at: h.root.appendingPathComponent("second-copy.ts"))
        #expect(try serving.fetch(gateway + "/titles/film/" + second, headers: [auth], in: h).status == 200)
    }

    @Test func aFolderSwappedForALinkIsNeverServedThrough() throws {
        let h = try Harness(name: "gw-swap")
        let (token, gateway, auth) = try serving.servedTitle(h)
        let folder = h.home.appendingPathComponent("titles/\(token)")
        let path = try #require(try serving.segments(token, in: h).first?.path)
        let url = gateway + "/titles/film/" + path
        let original = try Data(contentsOf: folder.appendingPathComponent(path))
        // A play under way: its segments take the hot path, and the folder's real path is known.
        #expect(try serving.fetch(gateway + "/titles/film/master.m3u8", headers: [auth], in: h).status == 200)
        #expect(try serving.fetch(url, headers: [auth], in: h).body == original)
        // The folder moved aside and replaced by a link to a copy holding other bytes.
        let aside = h.root.appendingPathComponent("aside")
        let other = h.root.appendingPathComponent("other")
        try FileManager.default.moveItem(at: folder, to: aside)
        try FileManager.default.copyItem(at: aside, to: other)
        try Data(repeating: 9, count: original.count).write(to: other.appendingPathComponent(path))
        try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: other)
        for method in ["GET", "HEAD", "GET"] {
            let answer = try serving.fetch(url, headers: [auth], method: method, in: h)
            #expect(answer.status == 404, "\(method) through a linked folder: \(answer.status), \(answer.body.count) B")
        }
        let playlist = try serving.fetch(gateway + "/titles/film/master.m3u8", headers: [auth], in: h)
        #expect(playlist.status == 404, "a playlist through a linked folder: \(playlist.status)")
        // The reverse: the link replaced by the real folder again is served from it at once.
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.moveItem(at: aside, to: folder)
        let back = try serving.fetch(url, headers: [auth], in: h)
        #expect(back.status == 200 && back.body == original, "the real folder again: \(back.status)")
    }

    @Test func eventStreamsPerDeviceAreCapped() throws {
        let h = try Harness(name: "gw-events")
        let (_, gateway, auth) = try serving.servedTitle(h)
        let other = "Authorization: Bearer \(try h.addDevice("tablet-2"))"
        var streams: [Process] = []
        // SIGKILL: processes the test starts inherit its blocked SIGTERM.
        defer {
            for p in streams where p.isRunning { kill(p.processIdentifier, SIGKILL) }
            for p in streams { p.waitUntilExit() }
        }
        func open(_ index: Int, _ credential: String) throws -> (Process, URL) {
            let head = h.root.appendingPathComponent("events-\(index).head")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [
                "curl", "-s", "-N", "-D", head.path, "-o", "/dev/null", "-H", credential, gateway + "/events",
            ]
            try p.run()
            streams.append(p)
            return (p, head)
        }
        func answered(_ head: URL) -> String {
            String(((try? String(contentsOf: head, encoding: .utf8)) ?? "").prefix { $0 != "\r" })
        }
        let cap = 4
        var held: [(Process, URL)] = []
        for i in 0..<cap { held.append(try open(i, auth)) }
        try h.waitUntil(timeout: 10, "\(cap) event streams to open") {
            held.allSatisfy { answered($0.1).contains(" 200") }
        }
        // One more: refused at once (curl gives up after 3 s on a stream that was let open).
        let (exit, body) = try TestMedia.shOutput(
            "curl -s -m 3 -w ' %{http_code}' -H '\(auth)' '\(gateway)/events'", in: h.root)
        #expect(exit == 0 && body.hasSuffix(" 429"), "stream \(cap + 1) of one device: \(exit) \(body)")
        #expect(body.contains("event streams") && body.contains("\(cap)"), "a clear body: \(body)")
        // Another device has places of its own.
        let (_, otherHead) = try open(90, other)
        try h.waitUntil(timeout: 10, "another device's stream") { answered(otherHead).contains(" 200") }
        // A closed stream frees its place.
        kill(held[0].0.processIdentifier, SIGKILL)
        held[0].0.waitUntilExit()
        var next: (Process, URL)?
        try h.waitUntil(timeout: 10, "a place to be freed") {
            if let next, answered(next.1).contains(" 200") { return true }
            if let next, next.0.isRunning { return false }
            next = try open(100 + streams.count, auth)
            return false
        }
    }

    @Test func aTitleMovedAwayStopsItsPlaysWithinASecond() throws {
        let h = try Harness(name: "gw-moved")
        let (token, gateway, auth) = try serving.servedTitle(h)
        let path = try #require(try serving.segments(token, in: h).first?.path)
        let stop = h.root.appendingPathComponent("stop")
        let log = h.root.appendingPathComponent("moved.log")
        let load = try serving.hammer(gateway + "/titles/film/" + path, auth: auth, log: log, stop: stop, in: h)
        defer {
            FileManager.default.createFile(atPath: stop.path, contents: nil)
            load.waitUntilExit()
        }
        try h.waitUntil(timeout: 20, "the device to be served") {
            serving.statuses(log, after: 0).filter { $0 == 200 }.count >= 20
        }
        let (code, out) = try h.stowctl(["export", token, h.root.appendingPathComponent("bundle").path, "--move"])
        #expect(code == 0, "\(out)")
        let movedAt = Date().timeIntervalSince1970
        #expect(try h.status(token).notPlayableReason?.code == .transferred)
        try h.waitUntil(timeout: 20, "requests well after the move") {
            serving.statuses(log, after: movedAt + 2).count >= 10
        }
        let served = serving.statuses(log, after: movedAt + 1).filter { $0 == 200 }.count
        #expect(served == 0, "\(served) segments served more than 1 s after the title was moved away")
        #expect(serving.statuses(log, after: movedAt + 1).allSatisfy { $0 == 403 })
        let answer = try serving.fetch(gateway + "/titles/film/" + path, headers: [auth], in: h)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("export --move"), "the reason is given")
    }
}
