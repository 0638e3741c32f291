import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// The operator's console (`/console`) in a real headless Chromium, logged in through the login form as the admin:
/// two copies of one URL told apart, only the actions a state accepts, the add-title form's variants and estimate
/// (fetched by the gateway under the scheduler's host allow-list) and the title it adds downloading; a device gets
/// 403 and a browser without a credential the login page.
@Suite("Console", .serialized)
struct ConsoleTests {
    static let adminSecret = "admin-secret-for-tests"

    /// Chromium logs in through `/login`'s form (as a person would) and opens the console; the steps after run on it.
    static func asAdmin(_ gateway: String, then steps: [ChromiumDriver.Step]) -> [ChromiumDriver.Step] {
        [
            .goto(gateway + "/login"),
            .run(
                "document.getElementById('secret').value = '\(adminSecret)'; "
                    + "document.getElementById('login').submit()"),
            .wait("location.pathname === '/' && document.readyState === 'complete'", timeout: 20),
            .goto(gateway + "/console"),
            .wait("document.body.getAttribute('data-events') === 'open'", timeout: 20),
        ] + steps
    }

    /// A row's text parts and actions, as the page shows them.
    static let rowsScript = """
        Array.from(document.querySelectorAll('#titles tr.title')).map(function (r) {
          return { token: r.getAttribute('data-token'), state: r.getAttribute('data-state'),
                   ids: r.querySelector('.ids').textContent, source: r.querySelector('.url').textContent,
                   name: r.querySelector('.name').textContent,
                   actions: Array.from(r.querySelectorAll('button.action')).map(function (b) {
                     return b.getAttribute('data-action'); }) };
        })
        """

    static func keep(_ shot: URL, as name: String) {
        let kept = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            ".build/test-output")
        try? FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: kept.appendingPathComponent(name))
        try? FileManager.default.copyItem(at: shot, to: kept.appendingPathComponent(name))
    }

    @Test func twoCopiesOfOneURLAreToldApartAndACompletedTitleOffersNoPause() throws {
        let h = try Harness(name: "console-copies")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        // Only 127.0.0.1 may be a source: the console's look at a playlist keeps to it as downloads do.
        try h.startPipeline(schedulerArguments: ["--allow-hosts", "127.0.0.1"])
        let old = try h.submit("v360p/index.m3u8", ["--id", "lecture-old", "--name", "Lecture"])
        _ = try h.stowctl(["cancel", old])
        #expect(try h.waitForFinal(old).state == .canceled)
        let new = try h.submit("v360p/index.m3u8", ["--id", "lecture-new", "--name", "Lecture", "--wait"])
        #expect(try h.status(new).state == .completed)
        let gateway = try h.startGateway(address: "127.0.0.1")

        // A device may not open the console or use its API; a browser without a credential goes to /login.
        let kiosk = try h.addDevice("kiosk")
        let bearer = "Authorization: Bearer \(kiosk)"
        #expect(try h.httpStatus(gateway + "/console", headers: [bearer]) == 403)
        #expect(try h.httpStatus(gateway + "/api/console/titles", headers: [bearer]) == 403)
        #expect(
            try h.httpStatus(
                gateway + "/api/titles", headers: [bearer, "Content-Type: application/json"],
                extra: ["-d", "{\"url\": \"\(h.originURL)master.m3u8\"}"]) == 403)
        #expect(try h.httpStatus(gateway + "/console", headers: ["Accept: text/html"]) == 303)

        // Outside --allow-hosts the gateway fetches nothing: the scheduler's refusal, naming the option.
        let jar = h.root.appendingPathComponent("cookies.txt").path
        _ = try TestMedia.shOutput("curl -s -c \(jar) -d 'secret=\(Self.adminSecret)' \(gateway)/login", in: h.root)
        let (_, page) = try TestMedia.shOutput("curl -s -b \(jar) \(gateway)/console", in: h.root)
        let meta = try #require(page.range(of: "<meta name=\"csrf-token\" content=\""))
        let csrf = String(page[meta.upperBound...].prefix { $0 != "\"" })
        let outside = h.originURL.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "master.m3u8"
        let (_, refused) = try TestMedia.shOutput(
            "curl -s -b \(jar) -H 'Origin: \(gateway)' -H 'X-CSRF-Token: \(csrf)' -H 'Content-Type: application/json' "
                + "-d '{\"url\": \"\(outside)\"}' \(gateway)/api/console/preview", in: h.root)
        #expect(refused.contains("\"code\":\"refused\"") && refused.contains("--allow-hosts"), "\(refused)")

        let shot = h.root.appendingPathComponent("console.png")
        let values = try ChromiumDriver(h: h).run(
            Self.asAdmin(
                gateway,
                then: [
                    .eval(Self.rowsScript), .eval("document.querySelector('#disk .used').textContent"),
                    .screenshot(shot, width: 1280, height: 900),
                ]))
        let rows = try #require(values.first as? [[String: Any]])
        let byToken = Dictionary(uniqueKeysWithValues: rows.map { ($0["token"] as? String ?? "", $0) })
        let oldRow = try #require(byToken[old], "the canceled copy is listed: \(rows)")
        let newRow = try #require(byToken[new], "the completed copy is listed: \(rows)")
        #expect((oldRow["ids"] as? String)?.contains("lecture-old") == true)
        #expect((newRow["ids"] as? String)?.contains("lecture-new") == true)
        #expect(oldRow["source"] as? String == h.originURL + "v360p/index.m3u8")
        #expect(oldRow["source"] as? String == newRow["source"] as? String, "one URL, two copies")
        #expect(oldRow["state"] as? String == "canceled" && newRow["state"] as? String == "completed")
        let completedActions = newRow["actions"] as? [String] ?? []
        #expect(!completedActions.contains("pause") && !completedActions.contains("resume"), "\(completedActions)")
        #expect(completedActions.contains("delete"))
        #expect(oldRow["actions"] as? [String] == ["delete"], "a canceled copy can only be deleted")
        // The box's disk as `stowctl stats` gives it: what the titles hold, what is free.
        let (_, statsJSON) = try h.stowctl(["stats", "--json"])
        let disk = try #require(try JSONDecoder().decode(SchedulerStats.self, from: Data(statsJSON.utf8)).disk)
        #expect(disk.usedBytes > 0 && (disk.freeBytes ?? 0) > 0 && disk.quotaBytes == nil, "\(disk)")
        let used = try #require(values.count > 1 ? values[1] as? String : nil)
        #expect(!used.isEmpty && used != "0 B", "the console shows what the titles hold: \(used)")
        #expect(((try? FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? Int) ?? 0) > 1000)
        Self.keep(shot, as: "console.png")
    }

    @Test func theAddTitleFormShowsVariantsAndTheEstimateThenTheTitleDownloads() throws {
        let h = try Harness(name: "console-add")
        try h.makeSample(seconds: 16)
        // Paced, so the title is still downloading when the page shows it.
        try h.startOrigin(throttleBytesPerSecond: 100_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        let gateway = try h.startGateway(address: "127.0.0.1")
        let url = h.originURL + "master.m3u8"
        let (code, estimateJSON) = try h.stowctl(["estimate", url, "--bitrate", "2000000", "--json"])
        #expect(code == 0)
        let estimate = try JSONDecoder().decode(EstimateFigures.self, from: Data(estimateJSON.utf8))
        let (_, variantsJSON) = try h.stowctl(["variants", url, "--json"])
        let variants = try JSONDecoder().decode(VariantCount.self, from: Data(variantsJSON.utf8))

        let shot = h.root.appendingPathComponent("console-add.png")
        let downloading = h.root.appendingPathComponent("console-downloading.png")
        let values = try ChromiumDriver(h: h).run(
            Self.asAdmin(
                gateway,
                then: [
                    .run(
                        "document.getElementById('add-url').value = '\(url)'; "
                            + "document.getElementById('add-name').value = 'Added from the console'; "
                            + "document.getElementById('add-bitrate').value = '2000000'; "
                            + "document.getElementById('preview-title').click()"),
                    .wait("!document.getElementById('preview').hidden", timeout: 20),
                    .eval("document.querySelectorAll('#variants tbody tr').length"),
                    .eval("document.getElementById('estimate').textContent"),
                    .screenshot(shot, width: 1280, height: 1000),
                    .run("document.getElementById('submit-title').click()"),
                    .wait("!!document.querySelector('#titles tr.title[data-state=\"downloading\"]')", timeout: 30),
                    // Progress moves live through /events: the row's rate appears once two events have come.
                    .wait(
                        "(document.querySelector('#titles tr.title[data-state=\"downloading\"] .rate') || {})"
                            + ".textContent.endsWith('/s')", timeout: 30),
                    .eval(Self.rowsScript),
                    .screenshot(downloading, width: 1280, height: 1000),
                ]))
        #expect(values.count == 3, "\(values)")
        #expect(values[0] as? Int == variants.variants.count && variants.variants.count >= 3, "\(values[0])")
        let shown = try #require(values[1] as? String)
        #expect(shown.contains("\(estimate.files) files"), "the estimate stowctl prints: \(shown) vs \(estimate)")
        #expect(shown.contains("(bandwidth × duration)"))
        let rows = try #require(values[2] as? [[String: Any]])
        let row = try #require(rows.first { $0["state"] as? String == "downloading" })
        #expect(row["name"] as? String == "Added from the console" && row["source"] as? String == url)
        let token = try #require(row["token"] as? String)
        let status = try h.status(token)
        #expect(status.name == "Added from the console" && status.url == url)
        #expect(Self.actions(row).contains("pause") && !Self.actions(row).contains("resume"))
        Self.keep(shot, as: "console-add.png")
        Self.keep(downloading, as: "console-downloading.png")
    }

    static func actions(_ row: [String: Any]) -> [String] { row["actions"] as? [String] ?? [] }

    struct EstimateFigures: Decodable {
        var files: Int
        var bytes: Int64?
    }

    struct VariantCount: Decodable {
        var variants: [Variant]
        struct Variant: Decodable { var bandwidth: Int }
    }
}
