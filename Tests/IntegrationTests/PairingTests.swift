import Foundation
import StowageQR
import StowageTestSupport
import Testing

/// Pairing a device without typing, end to end with the real scheduler, gateway, `stowctl` and headless Chromium:
/// the admin adds a device on `/console/devices`, the page's QR image decoded by `zbarimg` gives the link, a second
/// browser opening it is logged in as the device, once; `stowctl devices add --pair` prints a QR code that decodes
/// to its link too.
@Suite struct PairingTests {
    @Test func theAdminPairsADeviceWhoseQRCodeLogsAnotherBrowserInOnce() throws {
        let h = try Harness(name: "pairing")
        try h.startScheduler()
        let gateway = try h.startGateway(address: "127.0.0.1")

        // The admin logs in through /login (curl's cookie jar); Chromium gets that session's cookie.
        let jar = h.root.appendingPathComponent("admin-cookies.txt").path
        let (_, login) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' -c \(jar) -d 'secret=admin-secret-for-tests' \(gateway)/login",
            in: h.root)
        #expect(login == "303")
        let jarText = try String(contentsOfFile: jar, encoding: .utf8)
        let sessionLine = try #require(jarText.split(separator: "\n").first { $0.contains("stowage_session") })
        let session = String(try #require(sessionLine.split(separator: "\t").last))

        // Two devices already: one seen (its secret checked), one revoked.
        let projector = try h.addDevice("projector")
        #expect(try h.httpStatus(gateway + "/api/titles", headers: ["Authorization: Bearer \(projector)"]) == 200)
        _ = try h.addDevice("old-tv")
        #expect(try h.stowctl(["devices", "revoke", "old-tv"]).0 == 0)

        let admin = try DevToolsBrowser(profile: h.root.appendingPathComponent("admin-chromium"))
        defer { admin.close() }
        try admin.setCookie(name: "stowage_session", value: session, url: gateway)
        try admin.navigate(gateway + "/console/devices")
        _ = try admin.waitFor(
            "document.readyState === 'complete' && !!document.getElementById('add-device')", "the Devices page")
        _ = try admin.evaluate(
            "document.getElementById('device-name').value = 'tablet-3';"
                + "document.getElementById('add-button').click(); true")
        let image = try admin.waitFor(
            "(function () { var i = document.getElementById('pair-qr');"
                + " return i && i.src.indexOf('data:image/png;base64,') === 0 ? i.src : ''; })()",
            "the pairing's QR image")
        let shownLink = try admin.waitFor("document.getElementById('pair-link').textContent", "the link")
        let expiry = try admin.waitFor("document.getElementById('pair-expiry').textContent", "the expiry")
        // Ten minutes on: today, or tomorrow when the test runs in the last ten minutes of the day.
        #expect(
            (expiry.hasPrefix("until today ") || expiry.hasPrefix("until tomorrow "))
                && expiry.hasSuffix("(10 minutes)"), "\(expiry)")
        _ = try admin.waitFor(
            "!!document.querySelector('tr.device[data-device=\"tablet-3\"]')", "the new device in the list")
        let page = try #require(try admin.evaluate("document.querySelector('#devices tbody').innerText") as? String)
        #expect(page.contains("projector") && page.contains("today") && page.contains("revoked today"), "\(page)")
        try keep(try admin.screenshot(), as: "devices-page.png", in: h)

        // Revoking asks first: the row's Revoke shows a confirmation, whose Yes revokes the device.
        _ = try admin.evaluate(
            "document.querySelector('tr[data-device=\"projector\"] button.revoke').click();"
                + "document.querySelector('tr[data-device=\"projector\"] button.revoke-yes').click(); true")
        _ = try admin.waitFor(
            "document.querySelector('tr[data-device=\"projector\"] .state').textContent === 'revoked just now'",
            "the revocation")
        // The gateway keeps a good answer a second at most: the projector's secret stops then.
        try h.waitUntil(timeout: 5, "the revoked projector to be refused") {
            try h.httpStatus(gateway + "/api/titles", headers: ["Authorization: Bearer \(projector)"]) == 401
        }

        let png = try #require(Data(base64Encoded: String(image.dropFirst("data:image/png;base64,".count))))
        let link = try zbarimg(png, in: h)
        #expect(link == shownLink)
        #expect(link.hasPrefix(gateway + "/pair/") && link.count == (gateway + "/pair/").count + 22, "\(link)")

        // A second browser with a fresh profile opens the link: it is logged in as the device (the library).
        let tablet = try chromium(["--dump-dom", link], profile: "tablet-chromium", in: h)
        #expect(tablet.contains("tablet-3") && !tablet.contains("id=\"login\""), "\(tablet.prefix(2000))")
        #expect(tablet.contains("Stowage library"))
        // A second use, from a third browser, is refused with what to do.
        let again = try chromium(["--dump-dom", link], profile: "other-chromium", in: h)
        #expect(
            again.contains("used already") && again.contains("Ask the operator for a new one"), "\(again.prefix(2000))")
        #expect(!again.contains("class=\"who\""))

        let (_, listed) = try h.stowctl(["devices", "list", "--json"])
        let devices = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
        let device = try #require(devices?.first { $0["name"] as? String == "tablet-3" }, "\(listed)")
        #expect(device["lastSeenAt"] is String, "seen when it paired: \(device)")
        #expect(!listed.contains("secret"))
    }

    @Test func stowctlPrintsALinkAndAQRCodeThatDecodesToIt() throws {
        let h = try Harness(name: "pairing-cli")
        try h.startScheduler()
        let gateway = try h.startGateway(address: "127.0.0.1")
        let (status, out, err) = try h.stowctlStreams(["devices", "add", "kiosk", "--pair"])
        #expect(status == 0, "\(err)")
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        let link = try #require(lines.last)
        #expect(link.hasPrefix(gateway + "/pair/"), "\(out)")
        #expect(err.contains("it works once, until"), "\(err)")
        let qrText = lines.filter { $0.allSatisfy { "█▀▄ ".contains($0) } }.joined(separator: "\n")
        let modules = try #require(QRCode.modules(ofTerminalText: qrText), "the QR code's text:\n\(qrText)")
        #expect(try zbarimg(Data(modules.png(scale: 6, quietZone: 2)), in: h) == link)
        // The link works once: a session cookie and the library, then refused.
        let (_, first) = try TestMedia.shOutput("curl -s -o /dev/null -w '%{http_code}' '\(link)'", in: h.root)
        #expect(first == "303")
        let (_, second) = try TestMedia.shOutput("curl -s -o /dev/null -w '%{http_code}' '\(link)'", in: h.root)
        #expect(second == "401")

        let (jsonStatus, json) = try h.stowctl(["devices", "add", "kiosk-2", "--pair", "--json"])
        #expect(jsonStatus == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect((object?["link"] as? String)?.hasPrefix(gateway + "/pair/") == true)
        #expect(object?["name"] as? String == "kiosk-2" && object?["expiresAt"] is String)
        #expect(object?["secret"] == nil, "a paired device's secret is never shown")
    }

    /// `zbarimg`'s text of the one QR code in a PNG.
    func zbarimg(_ png: Data, in h: Harness) throws -> String {
        let file = h.root.appendingPathComponent("qr-\(UUID().uuidString).png")
        try png.write(to: file)
        let (status, out) = try TestMedia.shOutput(
            "zbarimg --quiet --raw -Sdisable -Sqrcode.enable '\(file.path)'", in: h.root)
        guard status == 0 else {
            throw HarnessError("zbarimg found no QR code (exit \(status); Deploy/test.sh installs zbar-tools)")
        }
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Headless Chromium with a profile of its own under the harness (a fresh one: no cookie).
    func chromium(_ arguments: [String], profile: String, in h: Harness) throws -> String {
        let args =
            [
                "/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--timeout=5000",
                "--user-data-dir=\(h.root.appendingPathComponent(profile).path)",
            ] + arguments
        let (status, out) = try TestMedia.shOutput(
            "timeout 90 " + args.map { "'\($0)'" }.joined(separator: " ") + " 2>/dev/null", in: h.root)
        guard status == 0 else { throw HarnessError("chromium exited \(status)") }
        return out
    }

    /// Keeps a screenshot under `.build/test-output/`.
    func keep(_ png: Data, as name: String, in h: Harness) throws {
        let kept = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            ".build/test-output")
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        try png.write(to: kept.appendingPathComponent(name))
        try png.write(to: h.root.appendingPathComponent(name))
    }
}
