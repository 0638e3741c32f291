import Foundation
import StowageTestSupport
import Testing

/// A DASH trick-mode AdaptationSet (`http://dashif.org/guidelines/trickmode`), as Shaka Packager writes it with
/// `trick_play_factor`: left out of the offline copy (nothing of it fetched) unless `submit --iframes` asks for it;
/// then its files are stored as the origin's, and the offline MPD keeps it as a trick-mode set of the local video,
/// served by `stowctl play` and the gateway while the main video still plays as before.
@Suite("DASH trick mode kept", .serialized)
struct DASHTrickModeTests {
    @Test func trickModeSetKeptOnlyWithIFrames() throws {
        let h = try Harness(name: "dash-trick")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let dir = h.media.appendingPathComponent("title")
        try ShakaPackager.clearDASH(input: input, into: dir, trickPlay: true)
        let source = try String(contentsOf: dir.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(source.contains("http://dashif.org/guidelines/trickmode"), "\(source)")
        try FileManager.default.copyItem(at: dir, to: h.media.appendingPathComponent("again"))
        try h.startOrigin()
        try h.startPipeline()

        let plain = try h.waitForFinal(try h.submit("title/manifest.mpd"))
        #expect(plain.state == .completed, "\(String(describing: plain.error))")
        let plainMPD = try String(contentsOfFile: try #require(plain.localPlaylist), encoding: .utf8)
        #expect(!plainMPD.contains("trickmode"), "left out by default: \(plainMPD)")
        #expect(h.originRequests(containing: "/title/t/") == 0, "nothing of it is fetched")

        let token = try h.submit("again/manifest.mpd", ["--iframes"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(h.originRequests(containing: "/again/t/") == 5, "its init section and four segments, once each")
        let copy = URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
        let mpd = try String(contentsOf: copy.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(
            mpd.contains("<EssentialProperty schemeIdUri=\"http://dashif.org/guidelines/trickmode\" value=\"0\"/>"),
            "kept as the trick mode of the local video set 0: \(mpd)")
        let sets = mpd.components(separatedBy: "<AdaptationSet").dropFirst()
        #expect(sets.count == 3 && sets.last?.contains("trickmode") == true, "video, audio, then trick mode")
        let folder = try #require(
            sets.last.flatMap { SEAReader.attribute("media", in: Substring($0)) }?.split(separator: "/")
                .dropLast().joined(separator: "/"))
        for number in 0...4 {
            let local = number == 0 ? "init.mp4" : String(format: "seg-%05d.m4s", number)
            let origin = number == 0 ? "init.mp4" : "\(number).m4s"
            #expect(
                try Data(contentsOf: copy.appendingPathComponent("\(folder)/\(local)"))
                    == Data(contentsOf: dir.appendingPathComponent("t/\(origin)")), "\(folder)/\(local)")
        }

        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(token)
        let video = try OfflineCopy.framemd5(entry, stream: "v:0")
        #expect(
            DASHMedia.hashes(video) == DASHMedia.hashes(try OfflineCopy.framemd5(input.path, stream: "v")),
            "the main video plays as before")
        let base = entry.replacingOccurrences(of: "/manifest.mpd", with: "")
        let names = ["init.mp4"] + (1...4).map { String(format: "seg-%05d.m4s", $0) }
        var joined = Data()
        for name in names { joined += try ShakaPackagerHLSTests.curlData("\(base)/\(folder)/\(name)", in: h) }
        let served = h.root.appendingPathComponent("trick.mp4")
        try joined.write(to: served)
        let trick = DASHMedia.hashes(try OfflineCopy.framemd5(served.path, stream: "v"))
        let packaged = try ShakaPackagerSEATests.joinedFrames(
            dir, ["t/init.mp4"] + (1...4).map { "t/\($0).m4s" }, stream: "v", in: h)
        #expect(trick == packaged && trick.count == 4, "the trick-mode frames, one a second: \(trick.count)")

        let gateway = try h.startGateway(address: "127.0.0.1")
        let auth = ["Authorization: Bearer \(try h.addDevice("tablet"))"]
        let remote = try ShakaPackagerHLSTests.curl("\(gateway)/titles/\(token)/manifest.mpd", headers: auth, in: h)
        #expect(remote.contains("guidelines/trickmode"), "\(remote)")
        let segment = try ShakaPackagerHLSTests.curlData(
            "\(gateway)/titles/\(token)/\(folder)/seg-00002.m4s", headers: auth, in: h)
        #expect(segment == (try Data(contentsOf: dir.appendingPathComponent("t/2.m4s"))), "the gateway serves it")
        let played = try OfflineCopy.framemd5(
            "\(gateway)/titles/\(token)/manifest.mpd", stream: "v:0",
            extra: ["-headers", "Authorization: Bearer \(auth[0].dropFirst("Authorization: Bearer ".count))\r\n"])
        #expect(DASHMedia.hashes(played) == DASHMedia.hashes(video), "a device plays the main video through it")
    }
}
