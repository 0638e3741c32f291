import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `stowctl store copy --to postgres://…` with the real executables: a box with clear HLS, AES-128 HLS and DASH
/// titles, a paired device, a bookmark and a counted play moves into a farm. The copy is refused while the box's
/// scheduler runs and into a database already used; its `--json` names every table; then two schedulers on the
/// PostgreSQL store (the box's master key) and a gateway given both endpoints list, verify and play every title, the
/// play counted once more.
@Suite("Store copy into a farm", .serialized)
struct StoreCopyIntegrationTests {
    struct Report: Decodable {
        struct Table: Decodable {
            var table: String
            var rows: Int
        }
        var to: String
        var tables: [Table]
    }

    struct ErrorReport: Decodable {
        struct Body: Decodable {
            var code: String
            var message: String
        }
        var error: Body
    }

    /// A media file of a title's offline copy (its path under the title's folder): the gateway counts a device's
    /// play at its first one.
    func firstMedia(_ h: Harness, _ token: String) throws -> String {
        let folder = h.home.appendingPathComponent("titles/\(token)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
        return try #require(files.sorted().first { ["ts", "m4s", "mp4"].contains(($0 as NSString).pathExtension) })
    }

    @Test func aBoxWithEveryKindOfTitleMovesIntoAFarmThatPlaysThem() throws {
        let h = try Harness(name: "store-copy")
        try h.makeSample(seconds: 4)
        for folder in ["aes", "dash"] {
            try FileManager.default.createDirectory(
                at: h.media.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try TestMedia.aesExplicitIV(into: h.media.appendingPathComponent("aes"), seconds: 4)
        try DASHMedia.template(into: h.media.appendingPathComponent("dash"), timeline: true, seconds: 4)
        try h.startOrigin()
        try h.startPipeline()
        let titles = ["master.m3u8", "aes/index.m3u8", "dash/manifest.mpd"]
        var tokens: [String] = []
        for title in titles {
            let status = try h.waitForFinal(try h.submit(title))
            #expect(status.state == .completed, "\(title): \(String(describing: status.error))")
            tokens.append(status.token)
        }
        let secret = try h.addDevice("tv")
        let (marked, markOut) = try h.stowctl(["bookmark", "add", tokens[0], "2", "--label", "here"])
        #expect(marked == 0, "\(markOut)")
        let playURL = try h.startPlay(tokens[0])
        #expect(try h.httpStatus(playURL) == 200)
        _ = h.terminate("play-\(tokens[0])")

        let postgres = try TestPostgres.shared()
        let url = try postgres.createDatabase()
        let database = String(url.split(separator: "/").last!)
        // A password in the URL is a usage error that never shows it; --help says what is not copied.
        let withPassword = url.replacingOccurrences(of: "@", with: ":hunter2@")
        let (usage, usageOut, usageError) = try h.stowctlStreams(["store", "copy", "--to", withPassword])
        #expect(usage == 2 && !(usageOut + usageError).contains("hunter2"), "\(usageError)")
        let (_, help) = try h.stowctl(["store", "copy", "--help"])
        #expect(help.contains("master.key") && help.contains("box.key") && help.contains("createdb"), "\(help)")
        // Refused while the box's scheduler runs, and nothing written.
        let (running, _, runningError) = try h.stowctlStreams(["store", "copy", "--to", url])
        #expect(running == 1 && runningError.contains("is running: stop it first"), "\(runningError)")
        let schema = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'"
        #expect(try postgres.psql(database, schema) == "0")
        for kind in ["scheduler", "license", "download", "integrity"] { #expect(h.terminate(kind) == 0) }

        let (code, out, err) = try h.stowctlStreams(["store", "copy", "--to", url, "--json"])
        #expect(code == 0, "\(err)")
        let report = try JSONDecoder().decode(Report.self, from: Data(out.utf8))
        #expect(report.to == url)
        let rows = Dictionary(uniqueKeysWithValues: report.tables.map { ($0.table, $0.rows) })
        #expect(rows["title"] == 3 && rows["device"] == 1 && rows["bookmark"].map { $0 >= 1 } == true, "\(rows)")
        let sqliteTables = try TestMedia.shOutput(
            "sqlite3 '\(h.home.appendingPathComponent("stowage.sqlite").path)' \"SELECT name FROM sqlite_master "
                + "WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'\"", in: h.root
        ).1.split(separator: "\n").map(String.init)
        #expect(Set(rows.keys) == Set(sqliteTables), "every table of the box is copied")
        // A database that holds rows (this one, now) is refused and left as it was; the JSON error says so.
        let (again, againOut, _) = try h.stowctlStreams(["store", "copy", "--to", url, "--json"])
        #expect(again == 1)
        let refusal = try JSONDecoder().decode(ErrorReport.self, from: Data(againOut.utf8))
        #expect(refusal.error.code == "refused" && refusal.error.message.contains("already holds"), "\(againOut)")
        #expect(try postgres.psql(database, "SELECT COUNT(*) FROM title") == "3")

        // The farm: two schedulers on the copy, the box's master key and titles folder.
        let keyData = try Data(contentsOf: h.home.appendingPathComponent("master.key"))
        let farm = try h.startSchedulerFarm(count: 2, store: url, masterKey: keyData.base64EncodedString())
        let list = farm.schedulerList
        let both = ["STOWAGE_SCHEDULER": list]
        for kind in ["license", "download", "integrity"] {
            try h.startWorker(kind, name: "\(kind)-farm", environment: both)
        }
        try h.waitUntil(timeout: 60, "three workers with the farm's leader") {
            let (code, out) = try h.stowctl(["workers", "--json", "--scheduler", list])
            return code == 0 && (try? JSONDecoder().decode([WorkerInfo].self, from: Data(out.utf8)))?.count == 3
        }
        let (listed, listOut) = try h.stowctl(["list", "--json", "--scheduler", list])
        #expect(listed == 0, "\(listOut)")
        let statuses = try JSONDecoder().decode([TitleStatus].self, from: Data(listOut.utf8))
        #expect(Set(statuses.map(\.token)) == Set(tokens))
        #expect(statuses.allSatisfy { $0.state == .completed && $0.playableOffline }, "\(statuses)")
        for token in tokens {
            let (verified, verifyOut) = try h.stowctl(["verify", token, "--scheduler", list])
            #expect(verified == 0, "verify \(token): \(verifyOut)")
        }
        let (bookmarks, bookmarkOut) = try h.stowctl(["bookmark", "list", tokens[0], "--scheduler", list])
        #expect(bookmarks == 0 && bookmarkOut.contains("here"), "\(bookmarkOut)")

        let gateway = try h.startGateway(address: "127.0.0.1", environment: both)
        let auth = ["Authorization: Bearer \(secret)"]
        func body(_ entry: String, _ token: String) throws -> String {
            try TestMedia.shOutput(
                "curl -s -H 'Authorization: Bearer \(secret)' '\(gateway)/titles/\(token)/\(entry)' | head -c 400",
                in: h.root
            ).1
        }
        for (title, token) in zip(titles, tokens) {
            let local = try #require(statuses.first { $0.token == token }?.localPlaylist)
            let folder = h.home.appendingPathComponent("titles/\(token)/").path
            let entry = local.hasPrefix(folder + "/") ? String(local.dropFirst(folder.count + 1)) : local
            // A device opens the title by its own URL: the gateway sends it to the entry, wherever it lies.
            let (_, location) = try TestMedia.shOutput(
                "curl -s -o /dev/null -w '%{redirect_url}' -H 'Authorization: Bearer \(secret)' "
                    + "'\(gateway)/titles/\(token)'",
                in: h.root)
            #expect(location.hasSuffix("/titles/\(token)/\(entry)"), "\(title): \(location) for \(entry)")
            let status = try h.httpStatus(gateway + "/titles/\(token)/\(entry)", headers: auth)
            let answer = try body(entry, token)
            #expect(status == 200, "the gateway serves \(title)'s \(entry): \(answer)")
            let media = try firstMedia(h, token)
            #expect(try h.httpStatus(gateway + "/titles/\(token)/\(media)", headers: auth) == 200, "\(media)")
        }
        func playCounts() throws -> [String] {
            try tokens.map { try postgres.psql(database, "SELECT playCount FROM title WHERE token = '\($0)'") }
        }
        try h.waitUntil(timeout: 30, "each play counted in the farm's store") { try playCounts() == ["2", "1", "1"] }
        #expect(try postgres.psql(database, "SELECT COUNT(*) FROM devicePlay WHERE device = 'tv'") == "3")
    }
}
