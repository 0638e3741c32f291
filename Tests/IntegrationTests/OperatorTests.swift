import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Pause, resume, delete and live limits, through stowctl against the real processes.
@Suite("Operator commands", .serialized)
struct OperatorTests {
    @Test func pauseSurvivesRestartAndResumeKeepsVerifiedFiles() throws {
        let h = try Harness(name: "pause")
        try h.makeSample(seconds: 30)
        try h.startOrigin(latencyMilliseconds: 150)
        try h.startPipeline(schedulerArguments: ["--per-title", "2"])
        let token = try h.submit("master.m3u8")
        try h.waitUntil(timeout: 60, "a few files verified") { ((try? h.status(token))?.segmentsDone ?? 0) >= 4 }
        let (code, _) = try h.stowctl(["pause", token])
        #expect(code == 0)
        #expect(try h.status(token).state == .suspended)
        try h.waitForIdleWorkers()  // what was in flight was called back...
        try h.waitForOriginIdle()  // ...and the origin logged all it saw
        let before = h.originRequests(matching: ".ts")
        // Nothing may be fetched while paused. The proof is a witness: a title from another origin (its own log),
        // submitted after the pause, is fetched whole while the paused title's files wait in the queue and the
        // workers are free, so the scheduler leased all that work and none of the paused title's.
        let witnessOrigin = try h.startOrigin(named: "witness")
        let (submitted, said) = try h.stowctl(["submit", witnessOrigin.url + "master.m3u8"])
        #expect(submitted == 0, "\(said)")
        let witness = try h.waitForFinal(String(try #require(said.split(separator: "\n").last)), timeout: 60)
        #expect(witness.state == .completed && witness.segmentsDone > 4, "the witness was fetched")
        try h.waitForOriginIdle()
        #expect(h.originRequests(matching: ".ts") == before, "nothing is fetched while paused")
        // Paused stays paused across a scheduler restart.
        #expect(h.terminate("scheduler") == 0)
        try h.startScheduler(["--per-title", "2"])
        try h.waitUntil(timeout: 20, "workers back") { (try? h.workers().count) == 3 }
        #expect(try h.status(token).state == .suspended)
        let done = try h.status(token).segmentsDone
        #expect(try h.stowctl(["resume", token]).0 == 0)
        let final = try h.waitForFinal(token)
        #expect(final.state == .completed)
        let fetches = h.originRequests(matching: ".ts")
        #expect(
            fetches <= final.segmentsTotal + 2,
            "verified files (\(done)) were not fetched again: \(fetches) fetches for \(final.segmentsTotal)")
        // Delete removes files and record.
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        #expect(try h.stowctl(["delete", token]).0 == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.path))
        #expect(try h.stowctl(["status", token]).0 == 1)
    }

    @Test func resumeContinuesAPartialFileWithRange() throws {
        let h = try Harness(name: "range")
        try h.makeSample(seconds: 8)
        try h.startOrigin(throttleBytesPerSecond: 120_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        let video = h.home.appendingPathComponent("titles/\(token)/video")
        func partSize() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: video.path)) ?? []
            return names.filter { $0.hasSuffix(".part") }.compactMap {
                let path = video.appendingPathComponent($0).path
                return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            }.max() ?? 0
        }
        try h.waitUntil(timeout: 60, "a partial file of 60 KB") { partSize() >= 60_000 }
        #expect(try h.stowctl(["pause", token]).0 == 0)
        try h.waitForIdleWorkers()
        #expect(partSize() >= 60_000, "partial bytes are kept while paused")
        #expect(try h.stowctl(["resume", token]).0 == 0)
        let final = try h.waitForFinal(token, timeout: 180)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v720p/index.m3u8"))
        let resumed = h.originLog().filter {
            $0.count > 5 && $0[2].hasSuffix(".ts") && $0[5].hasPrefix("bytes=") && !$0[5].hasPrefix("bytes=0-")
        }
        #expect(!resumed.isEmpty, "the paused file continued with a Range request")
        #expect(resumed.allSatisfy { $0[3] == "206" })
        // On the wire: each continuation is conditional on the validator the origin sent for that file (its ETag).
        for line in resumed {
            let sent = try Self.etag(of: h.media.appendingPathComponent(String(line[2].dropFirst())))
            #expect(
                line.count > 6 && line[6] == sent,
                "If-Range carries the origin's ETag \(sent): \(line.joined(separator: " "))")
        }
    }

    /// The validator the development origin sends for a file: `"<size>-<mtime in whole seconds>"`.
    static func etag(of file: URL) throws -> Substring {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let size = try #require(attributes[.size] as? Int)
        let modified = try #require(attributes[.modificationDate] as? Date)
        return "\"\(size)-\(Int(modified.timeIntervalSince1970))\""
    }

    /// A partial file whose origin copy changed while paused (same length, other bytes, another ETag): the resumed
    /// request's If-Range no longer matches, the origin answers 200, and the worker starts the file over. The title
    /// completes with the new bytes only, never old bytes followed by new ones.
    @Test func resumeRestartsAPartialFileWhoseOriginCopyChanged() throws {
        let h = try Harness(name: "changed")
        try h.makeSample(seconds: 8)
        try h.startOrigin(throttleBytesPerSecond: 120_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        let video = h.home.appendingPathComponent("titles/\(token)/video")
        var partName = ""
        func partSize() -> Int {
            let part = video.appendingPathComponent(partName).path
            return (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0
        }
        try h.waitUntil(timeout: 60, "a partial segment of 60 KB") {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: video.path)) ?? []
            partName = names.first { $0.hasSuffix(".ts.part") } ?? ""
            return !partName.isEmpty && partSize() >= 60_000
        }
        #expect(try h.stowctl(["pause", token]).0 == 0)
        try h.waitForIdleWorkers()
        let kept = partSize()
        #expect(kept >= 60_000, "partial bytes are kept while paused")
        let index = try #require(Int(partName.dropFirst("seg-".count).prefix(6)), "\(partName)")
        let path = "v720p/seg\(String(format: "%03d", index)).ts"
        let origin = h.media.appendingPathComponent(path)
        let oldTag = try Self.etag(of: origin)
        let old = try Data(contentsOf: origin)
        #expect(old.count > kept, "the file is not whole yet")
        // Other bytes in every TS packet's payload, before and after what was kept; sync bytes stay, length stays.
        var new = old
        for packet in stride(from: 0, to: new.count - 188 + 1, by: 188) { new[packet + 100] ^= 0xFF }
        try new.write(to: origin)
        // Another ETag even within the same second: the origin derives it from size and whole-second mtime.
        let attributes = try FileManager.default.attributesOfItem(atPath: origin.path)
        let modified = try #require(attributes[.modificationDate] as? Date)
        try FileManager.default.setAttributes(
            [.modificationDate: modified.addingTimeInterval(60)],
            ofItemAtPath: origin.path)
        let newTag = try Self.etag(of: origin)
        #expect(newTag != oldTag)
        #expect(try h.stowctl(["resume", token]).0 == 0)
        let final = try h.waitForFinal(token, timeout: 180)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let stored = try Data(contentsOf: video.appendingPathComponent(String(partName.dropLast(".part".count))))
        #expect(stored == new, "the stored file is the origin's new copy (\(stored.count) of \(new.count) bytes)")
        #expect(stored != old)
        // On the wire: a conditional continuation on the old ETag, refused with the whole (new) file, then a
        // fresh fetch from byte 0.
        let requests = h.originLog().filter { $0.count > 6 && $0[2] == "/" + path }
        let described = requests.map { $0.joined(separator: " ") }.joined(separator: "\n")
        let conditional = try #require(
            requests.firstIndex { $0[5] == "bytes=\(kept)-" },
            "a Range request from byte \(kept):\n\(described)")
        #expect(
            requests[conditional][6] == oldTag && requests[conditional][3] == "200",
            "If-Range on the old ETag \(oldTag), answered 200:\n\(described)")
        let after = requests[(conditional + 1)...]
        #expect(
            after.count == 1 && after.allSatisfy { $0[3] == "200" && $0[5] == "-" && $0[6] == "-" },
            "then the file from byte 0, unconditionally:\n\(described)")
    }

    @Test func aPartialFileThatIsAlreadyWholeIsFinishedWithoutRefetching() throws {
        let h = try Harness(name: "whole")
        try h.makeSample(seconds: 6)
        try h.startOrigin(throttleBytesPerSecond: 100_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        let video = h.home.appendingPathComponent("titles/\(token)/video")
        var partName = ""
        try h.waitUntil(timeout: 60, "a partial file") {
            partName =
                ((try? FileManager.default.contentsOfDirectory(atPath: video.path)) ?? []).first {
                    $0.hasSuffix(".ts.part")
                } ?? ""
            return !partName.isEmpty
        }
        #expect(try h.stowctl(["pause", token]).0 == 0)
        try h.waitForIdleWorkers()
        // As if the fetch had received every byte and died before the rename: the same .part file (its resume
        // record, an extended attribute, stays) holds the whole origin copy.
        let index = Int(partName.dropFirst("seg-".count).prefix(6))!
        let origin = h.media.appendingPathComponent("v720p/seg\(String(format: "%03d", index)).ts")
        let part = try FileHandle(forWritingTo: video.appendingPathComponent(partName))
        try part.truncate(atOffset: 0)
        try part.write(contentsOf: try Data(contentsOf: origin))
        try part.close()
        #expect(try h.stowctl(["resume", token]).0 == 0)
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v720p/index.m3u8"))
        let answers = h.originLog().filter { $0.count > 3 && $0[2].hasSuffix("v720p/" + origin.lastPathComponent) }.map
        { String($0[3]) }
        #expect(answers.last == "416", "the resumed fetch found nothing left to fetch: \(answers)")
    }

    @Test func missingFilesOfACompletedTitleAreReportedAtStartUp() throws {
        let h = try Harness(name: "gone")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        try h.startPipeline()
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--wait"])
        #expect(code == 0)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        #expect(h.terminate("scheduler") == 0)
        try FileManager.default.removeItem(at: h.home.appendingPathComponent("titles/\(token)"))
        try h.startScheduler()
        try h.waitUntil(timeout: 20, "scheduler back") { (try? h.status(token)) != nil }
        let status = try h.status(token)
        #expect(!status.playableOffline)
        #expect(status.error?.code == .integrity)
        #expect(status.error?.message.contains("missing") == true)
        let (playable, reason) = try h.stowctl(["playable", token])
        #expect(playable == 1 && reason.contains("missing"))
        #expect(try h.stowctl(["play", token]).0 == 1)
    }

    @Test func bandwidthCapHolds() throws {
        let h = try Harness(name: "rate")
        try h.makeSample(seconds: 8)
        try h.startOrigin()
        try h.startPipeline()
        let cap: Int64 = 400_000
        #expect(try h.stowctl(["limits", "--bandwidth", "\(cap)"]).0 == 0)
        // The share reaches the worker with the next heartbeat; it logs it.
        try h.waitUntil(timeout: 10, "the download worker to receive its share") {
            h.log("download").contains("bytesPerSecond=\(cap)")
        }
        let started = Date()
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--bitrate", "2000000", "--wait"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(code == 0)
        let status = try h.status(try #require(out.split(separator: "\n").last.map(String.init)))
        let floor = Double(status.bytesDownloaded) / Double(cap) - 1.5  // the bucket allows a one-second burst
        print(
            "[measure] \(status.bytesDownloaded) bytes under a \(cap) B/s cap "
                + "took \(String(format: "%.2f", elapsed)) s (floor \(String(format: "%.2f", floor)) s)"
        )
        #expect(elapsed >= floor, "the cap held")
    }

    @Test func limitsChangeLive() throws {
        let h = try Harness(name: "limits")
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try h.startPipeline()
        let (code, out) = try h.stowctl(["limits", "--titles", "3", "--per-host", "5", "--json"])
        #expect(code == 0)
        let limits = try JSONDecoder().decode(LimitsInfo.self, from: Data(out.utf8))
        #expect(
            limits == LimitsInfo(titles: 3, perTitle: 6, perHost: 5, licenses: 4, bandwidth: 0, diskCushion: 1 << 30))
        #expect(try h.stowctl(["limits", "--titles", "0"]).0 == 2)
    }
}
