import Foundation
import StowageTestSupport

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages ended by
/// a NUL on fds 3 and 4), for what `--dump-dom` cannot do: give the browser a cookie, type into a page and press
/// its buttons, read the DOM as the page's script left it, take a screenshot. Only Chromium itself is needed.
final class DevToolsBrowser {
    /// Bytes from Chromium, guarded by its condition (the pipe's handler fills it on another thread).
    final class Inbox: @unchecked Sendable {
        let condition = NSCondition()
        var data = Data()
        var closed = false
    }

    private let process = Process()
    private let toBrowser = Pipe()
    private let fromBrowser = Pipe()
    private let inbox = Inbox()
    private var nextID = 0
    private var session = ""

    /// Starts Chromium with its own profile in `profile` and attaches to a blank page of `width`×`height`.
    init(profile: URL, width: Int = 1000, height: Int = 900) throws {
        let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let binary else {
            throw HarnessError("chromium is not installed (Deploy/test.sh installs Debian's chromium)")
        }
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "exec \"$0\" --headless=new --no-sandbox --disable-gpu --remote-debugging-pipe --user-data-dir=\"$1\" "
                + "3<&0 4>&1 </dev/null >/dev/null 2>&1",
            binary, profile.path,
        ]
        process.standardInput = toBrowser
        process.standardOutput = fromBrowser
        let inbox = self.inbox
        fromBrowser.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            inbox.condition.lock()
            if chunk.isEmpty { inbox.closed = true } else { inbox.data.append(chunk) }
            inbox.condition.broadcast()
            inbox.condition.unlock()
        }
        try process.run()
        // The first answer comes once Chromium has started and made its profile: slow on a loaded machine (seen
        // over 30 s with two suites at once), so it gets longer than a command does.
        let target = try call("Target.createTarget", ["url": "about:blank"], inSession: false, timeout: 120)
        guard let targetID = target["targetId"] as? String else { throw HarnessError("no page target: \(target)") }
        let attached = try call(
            "Target.attachToTarget", ["targetId": targetID, "flatten": true], inSession: false)
        guard let session = attached["sessionId"] as? String else { throw HarnessError("not attached: \(attached)") }
        self.session = session
        _ = try call(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
    }

    /// Sends one command (to the page's session unless `inSession` is false) and waits for its result.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:], inSession: Bool = true, timeout: Double = 30) throws
        -> [String: Any]
    {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if inSession { message["sessionId"] = session }
        var bytes = try JSONSerialization.data(withJSONObject: message)
        bytes.append(0)
        toBrowser.fileHandleForWriting.write(bytes)
        let deadline = Date().addingTimeInterval(timeout)
        inbox.condition.lock()
        defer { inbox.condition.unlock() }
        while true {
            while let end = inbox.data.firstIndex(of: 0) {
                let one = inbox.data[inbox.data.startIndex..<end]
                inbox.data.removeSubrange(inbox.data.startIndex...end)
                guard let reply = try JSONSerialization.jsonObject(with: Data(one)) as? [String: Any],
                    reply["id"] as? Int == id
                else { continue }  // an event, or a reply to nobody waiting
                if let error = reply["error"] { throw HarnessError("\(method) failed: \(error)") }
                return reply["result"] as? [String: Any] ?? [:]
            }
            if inbox.closed { throw HarnessError("chromium closed its DevTools pipe during \(method)") }
            guard inbox.condition.wait(until: deadline) else { throw HarnessError("no answer to \(method)") }
        }
    }

    /// A cookie for `url` (as the browser would keep one a server set).
    func setCookie(name: String, value: String, url: String) throws {
        let result = try call("Network.setCookie", ["name": name, "value": value, "url": url, "httpOnly": true])
        guard result["success"] as? Bool != false else { throw HarnessError("the cookie was refused") }
    }

    func navigate(_ url: String) throws { try call("Page.navigate", ["url": url]) }

    /// The value of a JavaScript expression in the page (JSON values only).
    func evaluate(_ expression: String) throws -> Any? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        if let exception = result["exceptionDetails"] { throw HarnessError("the page threw: \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Waits until `expression` gives a non-empty string (or true), and returns it.
    func waitFor(_ expression: String, timeout: Double = 20, _ what: String) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            switch try? evaluate(expression) {
            case let text as String where !text.isEmpty: return text
            case let flag as Bool where flag: return "true"
            default: Thread.sleep(forTimeInterval: 0.1)
            }
        }
        throw HarnessError("timed out waiting for \(what)")
    }

    /// A PNG of what the page shows.
    func screenshot() throws -> Data {
        let shot = try call("Page.captureScreenshot", ["format": "png"])
        guard let base64 = shot["data"] as? String, let png = Data(base64Encoded: base64) else {
            throw HarnessError("no screenshot")
        }
        return png
    }

    /// Closes the browser and waits for it.
    func close() {
        _ = try? call("Browser.close", inSession: false, timeout: 5)
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        fromBrowser.fileHandleForReading.readabilityHandler = nil
    }
}
