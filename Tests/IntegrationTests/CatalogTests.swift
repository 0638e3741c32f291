import Crypto
import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// The box converges on a signed catalogue that stowage-origin serves (`catalog.json` and its detached
/// `catalog.json.sig` beside the media), with no `submit`: real processes, real ffmpeg media, a real store.
@Suite("Catalogue", .serialized)
struct CatalogTests {
    /// A box with a catalogue key, and titles `names` as copies of one generated sample under the origin's root.
    final class Box {
        let h: Harness
        let key = Curve25519.Signing.PrivateKey()
        var schedulerArguments: [String] = []

        /// `latency`: the origin answers each request this late, so a download takes several catalogue passes.
        init(_ name: String, titles names: [String], latency: Int = 0) throws {
            h = try Harness(name: name)
            let first = h.media.appendingPathComponent(names[0])
            let (status, out) = try h.run("stowage-origin", ["sample", first.path, "--seconds", "4"])
            guard status == 0 else { throw HarnessError("sample generation exited \(status): \(out)") }
            for name in names.dropFirst() {
                try FileManager.default.copyItem(at: first, to: h.media.appendingPathComponent(name))
            }
            let pub = h.root.appendingPathComponent("catalog.pub")
            try Data(key.publicKey.rawRepresentation.base64EncodedString().utf8).write(to: pub)
            try h.startOrigin(latencyMilliseconds: latency)
            schedulerArguments = [
                "--catalog", h.originURL + "catalog.json", "--catalog-key", pub.path, "--catalog-interval", "1s",
                "--catalog-grace", "2s",
            ]
        }

        /// Publishes `text` as the catalogue, signed (or with `signature` instead).
        func publish(_ text: String, signature: Data? = nil) throws {
            let bytes = Data(text.utf8)
            let sig = try signature ?? Data((key.signature(for: bytes).base64EncodedString() + "\n").utf8)
            // The signature first: a poll between the two writes sees old bytes with a new signature and refuses
            // them for one interval, never applies unsigned bytes.
            try sig.write(to: h.media.appendingPathComponent("catalog.json.sig"), options: .atomic)
            try bytes.write(to: h.media.appendingPathComponent("catalog.json"), options: .atomic)
        }

        func catalogue(version: Int, _ titles: [(id: String, path: String)]) -> String {
            let entries = titles.map {
                "{\"id\": \"\($0.id)\", \"url\": \"\(h.originURL)\($0.path)/master.m3u8\", \"name\": \"\($0.id)\"}"
            }
            return "{\"version\": \(version), \"titles\": [\(entries.joined(separator: ", "))]}"
        }

        func report() throws -> CatalogReport {
            let (code, out) = try h.stowctl(["catalog", "status", "--json"])
            guard code == 0 else { throw HarnessError("catalog status exited \(code): \(out)") }
            return try JSONDecoder().decode(CatalogReport.self, from: Data(out.utf8))
        }

        func titles() throws -> [TitleStatus] {
            let (code, out) = try h.stowctl(["list", "--json"])
            guard code == 0 else { throw HarnessError("list exited \(code): \(out)") }
            return try JSONDecoder().decode([TitleStatus].self, from: Data(out.utf8))
        }
    }

    @Test func aSignedCatalogueIsDownloadedAndARepublishedOneConvergesWithoutCuttingOffTheOldCopy() throws {
        let box = try Box("catalog", titles: ["a", "b", "c", "a2", "d"], latency: 1200)
        try box.publish(box.catalogue(version: 1, [("a", "a"), ("b", "b"), ("c", "c")]))
        try box.h.startPipeline(schedulerArguments: box.schedulerArguments)
        try box.h.waitUntil(timeout: 120, "the three catalogue titles present") {
            (try? box.report())?.entries.map(\.phase) == [.present, .present, .present]
        }
        let first = try box.titles()
        #expect(first.count == 3 && Set(first.compactMap(\.id)) == ["a", "b", "c"])
        #expect(first.allSatisfy { $0.state == .completed && $0.playableOffline })
        let oldA = try #require(first.first { $0.id == "a" })
        let oldB = try #require(first.first { $0.id == "b" })

        // Republished: b removed, a's URL changed, d added.
        try box.publish(box.catalogue(version: 2, [("a", "a2"), ("c", "c"), ("d", "d")]))
        var sawNewCopyDownloading = false
        try box.h.waitUntil(timeout: 120, "the box converged on version 2") {
            let titles = try box.titles()
            // Whatever holds the id "a" is complete and playable at every moment: devices are never cut off.
            let a = titles.first { $0.id == "a" }
            #expect(a?.state == .completed && a?.playableOffline == true, "id a is held by \(String(describing: a))")
            if titles.contains(where: { $0.url.hasSuffix("/a2/master.m3u8") && $0.state != .completed }) {
                sawNewCopyDownloading = true
                #expect(a?.token == oldA.token, "the id stays on the old copy while the new one downloads")
            }
            let report = try box.report()
            return report.version == 2 && report.entries.map(\.phase) == [.present, .present, .present]
                && titles.count == 3
        }
        let final = try box.titles()
        let newA = try #require(final.first { $0.id == "a" })
        #expect(newA.token != oldA.token && newA.url.hasSuffix("/a2/master.m3u8"))
        #expect(Set(final.compactMap(\.id)) == ["a", "c", "d"])
        #expect(!final.contains { $0.token == oldB.token || $0.token == oldA.token })
        #expect(!FileManager.default.fileExists(atPath: box.h.home.appendingPathComponent("titles/\(oldB.token)").path))
        #expect(sawNewCopyDownloading, "the new copy was seen downloading (else the test proved nothing about it)")
    }

    @Test func refusedCataloguesKeepThePreviousOneAndARestartWithoutNetworkStillKnowsIt() throws {
        let box = try Box("catalog-refuse", titles: ["a"])
        try box.publish(box.catalogue(version: 5, [("a", "a")]))
        try box.h.startPipeline(schedulerArguments: box.schedulerArguments)
        try box.h.waitUntil(timeout: 90, "catalogue title present") {
            (try? box.report())?.entries.map(\.phase) == [.present]
        }
        let checks: [(String, Data?, CatalogRefusal.Code)] = [
            (box.catalogue(version: 6, []), Data("bm90IGEgc2lnbmF0dXJl\n".utf8), .badSignature),
            (box.catalogue(version: 4, []), nil, .olderVersion),
            ("{\"version\": 7, \"titles\": [", nil, .malformed),
        ]
        for (text, signature, code) in checks {
            try box.publish(text, signature: signature)
            try box.h.waitUntil(timeout: 20, "the catalogue refused as \(code.rawValue)") {
                (try? box.report())?.lastError?.code == code
            }
            let report = try box.report()
            #expect(report.version == 5 && report.entries.map(\.phase) == [.present])
            let (plain, out) = try box.h.stowctl(["catalog", "status"])
            #expect(plain == 0 && out.contains(code.rawValue), "catalog status says why: \(out)")
        }
        // stowctl catalog apply goes through the same gate.
        let file = box.h.root.appendingPathComponent("old.json")
        try Data(box.catalogue(version: 3, []).utf8).write(to: file)
        let applied = try box.h.stowctlStreams(["catalog", "apply", file.path])
        #expect(applied.status == 1 && applied.stderr.contains("unsigned"), "\(applied)")
        #expect(try box.titles().count == 1)

        // kill -9, the catalogue URL unreachable: the restarted scheduler still knows version 5 and its title.
        box.h.kill9("scheduler")
        _ = box.h.terminate("origin")
        try box.h.startScheduler(box.schedulerArguments)
        try box.h.waitUntil(timeout: 30, "the restarted scheduler reports the fetch failure") {
            (try? box.report())?.lastError?.code == .unreachable
        }
        let report = try box.report()
        #expect(report.version == 5 && report.entries.map(\.phase) == [.present])
        #expect(try box.titles().count == 1)
    }

    /// An ISO 8601 time of a report (with or without fractional seconds) as seconds since 1970.
    static func instant(_ text: String) -> Double? {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions.insert(.withFractionalSeconds)
        return (plain.date(from: text) ?? fractional.date(from: text))?.timeIntervalSince1970
    }

    @Test func aReplacedCopyADeviceIsPlayingThroughTheGatewayIsNotDeletedUnderIt() throws {
        let box = try Box("catalog-play", titles: ["a", "a2"], latency: 1200)
        try box.publish(box.catalogue(version: 1, [("a", "a")]))
        try box.h.startPipeline(schedulerArguments: box.schedulerArguments)
        try box.h.waitUntil(timeout: 90, "catalogue title present") {
            (try? box.report())?.entries.map(\.phase) == [.present]
        }
        let old = try #require(try box.titles().first?.token)
        let gateway = try box.h.startGateway(address: "127.0.0.1")
        let bearer = "Authorization: Bearer \(try box.h.addDevice("tablet"))"
        let folder = box.h.home.appendingPathComponent("titles/\(old)")
        let segment = try #require(
            FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.first {
                $0.hasSuffix(".ts")
            })
        let playing = "\(gateway)/titles/\(old)/\(segment)"
        #expect(try box.h.httpStatus(playing, headers: [bearer]) == 200)

        // The URL changes; the device goes on playing the old copy by its token all along.
        try box.publish(box.catalogue(version: 2, [("a", "a2")]))
        try box.h.waitUntil(timeout: 90, "the new copy swapped in") {
            #expect(try box.h.httpStatus(playing, headers: [bearer]) == 200, "the device was cut off")
            let entry = try box.report().entries.first { $0.id == "a" }
            return entry?.phase == .present && entry?.token != old
        }
        // Catalogue passes after the old copy's removeAt, the device playing all along: each fetch of the catalogue
        // (`lastFetchAt`) is followed in the same loop turn by a convergence pass, before `catalog status` is
        // answered, so two fetches stamped after removeAt prove two passes that would have deleted it.
        let removeAt = try #require(
            try box.report().entries.first { $0.token == old }?.removeAt.flatMap(Self.instant), "removeAt of \(old)")
        var fetches: Set<Double> = []
        try box.h.waitUntil(timeout: 60, "two catalogue passes after the old copy's removeAt") {
            #expect(try box.h.httpStatus(playing, headers: [bearer]) == 200, "the device was cut off")
            if let at = try box.report().lastFetchAt.flatMap(Self.instant), at > removeAt { fetches.insert(at) }
            return fetches.count >= 2
        }
        #expect(try box.h.stowctl(["status", old]).0 == 0, "the replaced copy is kept while it is played")
        #expect(try box.report().entries.contains { $0.token == old && $0.phase == .toBeRemoved })
        #expect(try box.h.httpStatus("\(gateway)/titles/a/master.m3u8", headers: [bearer]) == 200)
    }
}
