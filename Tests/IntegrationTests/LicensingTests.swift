import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Licensing against the reference license server of `stowage-origin` (JSON license API) and HLS key delivery.
@Suite("Licensing", .serialized)
struct LicensingTests {
    func setPolicy(_ h: Harness, _ json: String) throws {
        try json.write(to: h.root.appendingPathComponent("policy.json"), atomically: true, encoding: .utf8)
    }

    func start(_ name: String, _ make: (URL) throws -> Void, policy: String) throws -> Harness {
        let h = try Harness(name: name)
        try make(h.media)
        try setPolicy(h, policy)
        try h.startOrigin(extra: [
            "--license-policy", h.root.appendingPathComponent("policy.json").path,
            "--grant-log", h.root.appendingPathComponent("grants.log").path,
        ])
        try h.startPipeline()
        return h
    }

    func license(_ h: Harness, _ token: String) throws -> LicenseReport {
        let (code, out) = try h.stowctl(["license", token, "--json"])
        guard code == 0 else { throw HarnessError("license exited \(code)") }
        return try JSONDecoder().decode(LicenseReport.self, from: Data(out.utf8))
    }

    /// The lines of the license server's grant log (grants and injected failures), as JSON objects, in order.
    func grantLog(_ h: Harness) throws -> [[String: Any]] {
        try String(contentsOf: h.root.appendingPathComponent("grants.log"), encoding: .utf8).split(separator: "\n")
            .map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw HarnessError("a grant log line is not a JSON object: \(line)")
                }
                return object
            }
    }

    func iso(_ text: String?) -> Double? {
        text.flatMap { ISO8601DateFormatter().date(from: $0)?.timeIntervalSince1970 }
    }

    func stopPlay(_ h: Harness, _ token: String) { _ = h.terminate("play-\(token)") }

    @Test func jsonLicenseAPIGrantsLessThanAskedAndPlayCountHolds() throws {
        let h = try start(
            "lic-api", { try TestMedia.aesExplicitIV(into: $0) },
            policy:
                #"{"auth": {"alice": "s3cret"}, "default": {"grantKind": "rental", "maxRentalSeconds": 3600, "#
                + #""playCount": 2}}"#
        )
        let licenseURL = h.originURL + "license?user=alice&token=s3cret"
        // HLS key delivery refused by the key server: a license error, nothing fetched.
        try setPolicy(
            h,
            #"{"auth": {"alice": "s3cret"}, "titles": {"/key.bin": {"refuse": true}}, "default": "#
                + #"{"grantKind": "rental", "maxRentalSeconds": 3600, "playCount": 2}}"#
        )
        let (keyRefused, keyOut) = try h.stowctl(["submit", h.originURL + "index.m3u8", "--wait"])
        #expect(keyRefused == 1)
        let keyStatus = try h.status(try #require(keyOut.split(separator: "\n").last.map(String.init)))
        #expect(keyStatus.error?.code == .license && keyStatus.error?.message.contains("403") == true)
        #expect(h.originRequests(matching: ".ts") == 0)
        try setPolicy(
            h,
            #"{"auth": {"alice": "s3cret"}, "default": {"grantKind": "rental", "maxRentalSeconds": 3600, "#
                + #""playCount": 2}}"#
        )
        let (bad, _) = try h.stowctl([
            "submit", h.originURL + "index.m3u8", "--license-url", h.originURL + "license?user=alice&token=wrong",
            "--wait",
        ])
        #expect(bad == 1, "a bad token is refused")
        try h.stowctl(["list", "--json"]).1.split(separator: "\"token\" : \"").dropFirst().forEach { part in
            _ = try? h.stowctl(["delete", String(part.prefix(16))])
        }
        let (code, out, err) = try h.stowctlStreams([
            "submit", h.originURL + "index.m3u8", "--rental", "24h", "--play-count", "5",
            "--license-url", licenseURL, "--wait", "--json",
        ])
        #expect(code == 0, "\(out) \(err)")
        // With --json, one document: the final status (the token is in it).
        let token = try JSONDecoder().decode(TitleStatus.self, from: Data(out.utf8)).token
        let report = try license(h, token)
        let l = try #require(report.license)
        #expect(l.kind == .rental)
        let requested = try #require(iso(l.requestedAt)), expires = try #require(iso(l.expiresAt))
        #expect(abs(expires - requested - 3600) < 2, "the server granted 1 h of the 24 h asked")
        #expect(l.playsRemaining == 2)
        #expect(!report.licenseURL!.contains("s3cret"), "authorisation is not echoed")
        // Two plays, then the third is refused with the reason.
        for _ in 0..<2 {
            let url = try h.startPlay(token)
            #expect(!(try OfflineCopy.framemd5(url)).isEmpty)
            stopPlay(h, token)
        }
        let (third, reason) = try h.run("stowctl", ["playable", token])
        #expect(third == 1 && reason.contains("plays are used"), "\(reason)")
        #expect(try h.stowctl(["play", token]).0 == 1)
        // No plays left counts as expired, so `renew --expired` picks the title up.
        let used = try h.status(token)
        #expect(
            used.license?.expired == true && used.license?.playsRemaining == 0, "\(String(describing: used.license))")
        let (_, renewed) = try h.stowctl(["renew", "--expired", "--json"])
        #expect(renewed.contains(token), "renew --expired picked the used-up title: \(renewed)")
        let grants = try String(contentsOf: h.root.appendingPathComponent("grants.log"), encoding: .utf8)
        #expect(grants.contains("\"user\":\"alice\""))
        // No key bytes in any JSON output.
        let key = try Data(contentsOf: h.media.appendingPathComponent("key.bin"))
        for args in [["status", token, "--json"], ["license", token, "--json"], ["list", "--json"]] {
            let text = try h.stowctl(args).1
            #expect(
                !text.contains(key.base64EncodedString())
                    && !text.contains(Hex.encode(key)))
        }
    }

    @Test func w3cClearKeyLicenseServer() throws {
        let h = try start("lic-ck", { try TestMedia.clearKey(into: $0) }, policy: "{}")
        try FileManager.default.removeItem(at: h.root.appendingPathComponent("policy.json"))
        try FileManager.default.copyItem(
            at: h.media.appendingPathComponent("clearkey-policy.json"), to: h.root.appendingPathComponent("policy.json")
        )
        let (code, out) = try h.stowctl(["submit", h.originURL + "index.m3u8", "--purchase", "--wait"])
        #expect(code == 0, "\(out)")
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let local = try String(
            contentsOf: URL(fileURLWithPath: try #require(try h.status(token).localPlaylist)), encoding: .utf8)
        #expect(local.contains("URI=\"/keys/0\"") && !local.contains("KEYFORMAT"))
        let clearFrames = try OfflineCopy.framemd5(h.originURL + "clear/index.m3u8")
        #expect(h.terminate("origin") == 0, "the origin stops cleanly on SIGTERM")
        #expect(
            try OfflineCopy.framemd5(h.startPlay(token)) == clearFrames, "the Clear Key-protected copy plays offline")
        #expect(try license(h, token).license?.kind == .purchase)
    }

    @Test func totalPlayTimeIsCountedFromServedMedia() throws {
        let h = try start("lic-time", { _ in }, policy: "{}")
        try h.makeSample(seconds: 8)
        let (code, out) = try h.stowctl([
            "submit", h.originURL + "master.m3u8", "--purchase", "--play-time", "5s", "--wait",
        ])
        #expect(code == 0)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        #expect(try license(h, token).license?.playTimeRemainingSeconds == 5)
        let url = try h.startPlay(token)
        // Six seconds of wall clock with the play server open and nothing served: no play time is used.
        let opened = Date()
        try h.waitUntil(timeout: 20, "six seconds with the player idle") { Date().timeIntervalSince(opened) >= 6 }
        #expect(
            try license(h, token).license?.playTimeRemainingSeconds == 5, "play time counts media served, not wall time"
        )
        #expect(!(try OfflineCopy.framemd5(url)).isEmpty)  // 8 s of media served, in far less wall time
        try h.waitUntil(timeout: 10, "the play time to be used up") {
            (try? self.license(h, token).license?.playTimeRemainingSeconds) == 0
        }
        let (playable, reason) = try h.run("stowctl", ["playable", token])
        #expect(playable == 1 && reason.contains("play time"), "\(reason)")
        // The running play server stops serving media once the license ends.
        let refused = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' "
                + "'\(url.replacingOccurrences(of: "master.m3u8", with: "video/seg-000000.ts"))'",
            in: h.root
        ).1
        #expect(refused == "403")
    }

    @Test func aLicenseEndingBeforeTheDownloadCouldFinishRefusesIt() throws {
        let h = try start("lic-short", { _ in }, policy: "{}")
        try h.makeSample(seconds: 8)
        #expect(try h.stowctl(["limits", "--bandwidth", "100000"]).0 == 0)
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--rental", "3s", "--wait"])
        #expect(code == 1)
        let status = try h.status(try #require(out.split(separator: "\n").last.map(String.init)))
        #expect(status.error?.code == .license)
        #expect(status.error?.message.contains("before the download could finish") == true)
        #expect(h.originRequests(matching: ".ts") == 0)
    }

    @Test func renewsAutomaticallyBeforeExpiry() throws {
        let h = try Harness(name: "lic-auto")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        try h.startPipeline(schedulerArguments: ["--auto-renew-before", "20"])
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--rental", "15s", "--wait"])
        #expect(code == 0)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let first = try #require(try license(h, token).license?.requestedAt)
        try h.waitUntil(timeout: 40, "an automatic renewal") {
            (try? self.license(h, token).license?.requestedAt) != first
        }
        #expect(try license(h, token).license?.expired == false)
    }

    @Test func preloadThenSubmitReusesTheToken() throws {
        let h = try start(
            "lic-pre", { try TestMedia.aesExplicitIV(into: $0, seconds: 4) },
            policy: #"{"default": {"grantKind": "rental", "maxRentalSeconds": 3600}}"#)
        let (code, out) = try h.stowctl([
            "preload", h.originURL + "index.m3u8", "--rental", "2h", "--license-url", h.originURL + "license",
        ])
        #expect(code == 0)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let preloaded = try h.status(token)
        #expect(preloaded.state == .licensed)
        #expect(preloaded.license?.kind == .rental)
        #expect(h.originRequests(matching: ".ts") == 0, "preload fetches no segment")
        let (submitted, out2) = try h.stowctl(["submit", h.originURL + "index.m3u8", "--wait"])
        #expect(submitted == 0)
        #expect(out2.split(separator: "\n").last.map(String.init) == token, "submit reuses the preloaded token")
        #expect(try h.status(token).state == .completed)
    }

    @Test func forcedExpiryRenewalSuggestedAndRenewExpired() throws {
        let h = try Harness(name: "lic-force")
        try TestMedia.fmp4(into: h.media, singleFile: false, seconds: 4)
        _ = try TestMedia.sh(
            "for d in a b; do mkdir -p $d; cp index.m3u8 *.m4s $d/; cp init.mp4 $d/ 2>/dev/null || true; done",
            in: h.media)
        try setPolicy(h, #"{"default": {"grantKind": "rental", "maxRentalSeconds": 3600}}"#)
        try h.startOrigin(extra: ["--license-policy", h.root.appendingPathComponent("policy.json").path])
        try h.startPipeline(schedulerArguments: ["--auto-renew-before", "5"])
        func submit(_ path: String) throws -> String {
            let (code, out) = try h.stowctl([
                "submit", h.originURL + path, "--rental", "1h", "--license-url",
                h.originURL + "license", "--wait",
            ])
            #expect(code == 0, "\(out)")
            return try #require(out.split(separator: "\n").last.map(String.init))
        }
        let a = try submit("a/index.m3u8"), b = try submit("b/index.m3u8")
        // The server revokes A at its next renewal: A is expired and not playable, saying why.
        try setPolicy(
            h,
            #"{"titles": {"/a/index.m3u8": {"grantKind": "rental", "maxRentalSeconds": 3600, "forceExpired": "#
                + #"true}}, "default": {"grantKind": "rental", "maxRentalSeconds": 3600}}"#
        )
        #expect(try h.stowctl(["renew", a]).0 == 0)
        #expect(try license(h, a).forceExpired)
        #expect(try license(h, a).license?.expired == true)
        let (aPlayable, why) = try h.run("stowctl", ["playable", a])
        #expect(aPlayable == 1 && why.contains("revoked"), "\(why)")
        #expect(try h.stowctl(["playable", b]).0 == 0)
        // `renew --expired` picks A, not B.
        try setPolicy(h, #"{"default": {"grantKind": "rental", "maxRentalSeconds": 3600}}"#)
        let (_, renewed) = try h.stowctl(["renew", "--expired", "--json"])
        #expect(renewed.contains(a) && !renewed.contains(b), "\(renewed)")
        #expect(try h.stowctl(["playable", a]).0 == 0, "renewed: playable again")
        // The server suggests renewing B: the scheduler renews it by itself long before its expiry.
        try setPolicy(
            h,
            #"{"titles": {"/b/index.m3u8": {"grantKind": "rental", "maxRentalSeconds": 3600, "#
                + #""renewalSuggested": true}}, "default": {"grantKind": "rental", "maxRentalSeconds": 3600}}"#
        )
        #expect(try h.stowctl(["renew", b]).0 == 0)
        #expect(try license(h, b).renewalSuggested)
        let suggestedAt = try #require(try license(h, b).license?.requestedAt)
        try setPolicy(h, #"{"default": {"grantKind": "rental", "maxRentalSeconds": 3600}}"#)
        try h.waitUntil(timeout: 40, "an automatic renewal of the suggested title") {
            (try? self.license(h, b).license?.requestedAt) != suggestedAt
        }
        #expect(try license(h, b).renewalSuggested == false)
        #expect(h.log("scheduler").contains("renewing before expiry"))
    }

    @Test func refusalTransientFailuresRenewalAndBulkRenewal() throws {
        let h = try start(
            "lic-renew", { try TestMedia.fmp4(into: $0, singleFile: false, seconds: 4) },
            policy: #"{"default": {"grantKind": "rental", "maxRentalSeconds": 600}}"#)
        // Refused: fails with a license error and no segment is fetched.
        try setPolicy(h, #"{"titles": {"/index.m3u8": {"refuse": true}}}"#)
        let (refused, out) = try h.stowctl([
            "submit", h.originURL + "index.m3u8", "--license-url", h.originURL + "license", "--wait",
        ])
        #expect(refused == 1)
        let refusedStatus = try h.status(try #require(out.split(separator: "\n").last.map(String.init)))
        #expect(refusedStatus.error?.code == .license && refusedStatus.error?.message.contains("403") == true)
        #expect(h.originRequests(matching: ".m4s") == 0, "no segment fetched for a refused title")
        // Transient: two 500s, retried with backoff, then granted.
        try setPolicy(
            h,
            #"{"titles": {"/index.m3u8": {"grantKind": "rental", "maxRentalSeconds": 600, "failTimes": 2, "#
                + #""failStatus": 500}}}"#
        )
        let (ok, out2) = try h.stowctl([
            "submit", h.originURL + "index.m3u8", "--rental", "1h", "--license-url", h.originURL + "license", "--wait",
        ])
        #expect(ok == 0)
        let token = try #require(out2.split(separator: "\n").last.map(String.init))
        // The license server's log: the two injected 500s, then the grant, in that order (the refusal before them
        // answered 403 and logs nothing).
        let logged = try grantLog(h).filter { $0["title"] as? String == "/index.m3u8" }
        #expect(logged.count == 3, "two failures and one grant: \(logged)")
        #expect(
            logged.prefix(2).map { $0["failed"] as? Int } == [500, 500]
                && logged.prefix(2).map { $0["attempt"] as? Int } == [1, 2],
            "the two injected 500s come first: \(logged)")
        #expect(logged.last?["granted"] != nil && logged.last?["failed"] == nil, "then the grant: \(logged)")
        let times = logged.compactMap { $0["at"] as? Double }
        #expect(times.count == 3 && times == times.sorted(), "logged in the order they were answered: \(times)")
        let first = try #require(try license(h, token).license)
        // Renewal with changed terms: the expiry moves, the media is untouched (same inode, same bytes).
        let segment = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: h.home.appendingPathComponent("titles/\(token)").path)
                .first { $0.hasSuffix(".m4s") })
        let path = h.home.appendingPathComponent("titles/\(token)/\(segment)").path
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try setPolicy(h, #"{"titles": {"/index.m3u8": {"grantKind": "rental", "maxRentalSeconds": 7200}}}"#)
        let (renewed, renewOut) = try h.stowctl(["renew", token, "--rental", "2h"])
        #expect(renewed == 0, "\(renewOut)")
        let second = try #require(try license(h, token).license)
        #expect(try #require(iso(second.expiresAt)) > (try #require(iso(first.expiresAt))) + 3000)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try h.status(token).state == .completed)
        // Bulk renewal with one failing item: a second title, then the server refuses the first one.
        try FileManager.default.createDirectory(
            at: h.media.appendingPathComponent("b"), withIntermediateDirectories: true)
        _ = try TestMedia.sh("cp index.m3u8 *.m4s init.mp4 b/ 2>/dev/null || cp index.m3u8 *.m4s b/", in: h.media)
        #expect(
            try h.stowctl([
                "submit", h.originURL + "b/index.m3u8", "--rental", "1h", "--license-url", h.originURL + "license",
                "--wait",
            ]).0 == 0)
        try setPolicy(
            h,
            #"{"titles": {"/index.m3u8": {"refuse": true}}, "default": {"grantKind": "rental", "#
                + #""maxRentalSeconds": 600}}"#
        )
        let (bulk, summary) = try h.stowctl(["renew", "--all"])
        #expect(bulk == 1)
        #expect(summary.contains("renewed 1 of 2, 1 failed"), "\(summary)")
        #expect(try license(h, token).lastError?.contains("403") == true)
        #expect(try h.status(token).state == .completed, "a failed renewal keeps the title and its media")
    }

    @Test func expiryDualExpiryAndClockRollback() throws {
        let h = try start("lic-clock", { try TestMedia.fmp4(into: $0, singleFile: false, seconds: 4) }, policy: "{}")
        _ = try TestMedia.sh(
            "for d in p r d; do mkdir -p $d; cp index.m3u8 *.m4s $d/; cp init.mp4 $d/ 2>/dev/null || true; done",
            in: h.media)
        func submit(_ path: String, _ options: [String]) throws -> String {
            let (code, out) = try h.stowctl(["submit", h.originURL + path, "--wait"] + options)
            #expect(code == 0, "\(out)")
            return try #require(out.split(separator: "\n").last.map(String.init))
        }
        let purchase = try submit("p/index.m3u8", ["--purchase"])
        let rental = try submit("r/index.m3u8", ["--rental", "3s"])
        let dual = try submit("d/index.m3u8", ["--rental", "1h", "--play-duration", "2s"])
        let downloaded = Date()
        let p = try #require(try license(h, purchase).license)
        #expect(p.kind == .purchase && p.expiresAt == nil && !p.expired)
        #expect(try h.stowctl(["license", "0000000000000000"]).0 == 1, "a missing title is an error")
        // Dual expiry: the play duration starts at the first play, not at the download: 3 s after the download
        // the title is still playable.
        try h.waitUntil(timeout: 20, "3 s after the download") { Date().timeIntervalSince(downloaded) >= 3 }
        #expect(
            try h.stowctl(["playable", dual]).0 == 0, "the 2 s play duration has not started before the first play")
        _ = try h.startPlay(dual)
        stopPlay(h, dual)
        #expect(try h.stowctl(["playable", dual]).0 == 0, "still playable within the 2 s play duration")
        try h.waitUntil(timeout: 15, "the play duration to end") { try h.stowctl(["playable", dual]).0 == 1 }
        let (dualCode, dualReason) = try h.run("stowctl", ["playable", dual])
        #expect(dualCode == 1 && dualReason.contains("play duration"), "\(dualReason)")
        let (rentalCode, rentalReason) = try h.run("stowctl", ["playable", rental])
        #expect(rentalCode == 1 && rentalReason.contains("rental expired"), "\(rentalReason)")
        #expect(try license(h, rental).license?.expired == true)
        #expect(try h.stowctl(["playable", purchase]).0 == 0)
        // The clock goes back 30 min under a running scheduler (libfaketime): a rental that is valid before
        // the step is not playable after it, and the scheduler says why.
        #expect(try h.stowctl(["renew", rental, "--rental", "1h"]).0 == 0)
        #expect(h.terminate("scheduler") == 0)
        let (clock, fake) = try h.fakeClock("scheduler")
        try h.startScheduler(environment: fake)
        try h.waitUntil(timeout: 20, "workers back") { (try? h.workers().count) == 3 }
        let (before, beforeReason) = try h.run("stowctl", ["playable", rental])
        #expect(before == 0, "valid before the step: \(beforeReason)")
        #expect(try license(h, rental).license?.expired == false)
        try "-1800".write(to: clock, atomically: true, encoding: .utf8)
        try h.waitUntil(timeout: 30, "the scheduler to notice the clock went back") {
            h.log("scheduler").contains("the wall clock went back")
        }
        let (after, afterReason) = try h.run("stowctl", ["playable", rental])
        #expect(after == 1 && afterReason.contains("clock went back"), "not playable after the step: \(afterReason)")
        #expect(try license(h, rental).license?.expired == true)
        let (pc, _) = try h.run("stowctl", ["playable", purchase])
        #expect(pc == 0, "a purchase does not depend on the clock")
        #expect(try h.stowctl(["renew", rental, "--rental", "1h"]).0 == 0)
        #expect(try h.stowctl(["playable", rental]).0 == 0, "renewed online: playable again")
    }
}
