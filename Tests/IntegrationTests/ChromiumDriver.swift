import Foundation
import StowageTestSupport

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`), for pages a test must
/// use as a person does: log in through the login form, type into a form, press its buttons, then read the DOM.
/// The driver is a short Python script (Debian's `python3`, no module beyond the standard library): Chromium reads
/// commands on fd 3 and writes answers on fd 4, which Foundation's `Process` cannot hand over.
struct ChromiumDriver {
    /// One step: go to a URL, evaluate a script (its value is returned), wait until a script is truthy, or take a
    /// screenshot.
    enum Step {
        case goto(String)
        case eval(String)
        /// Evaluate a script for its effect (a click, a form's values): no value returned.
        case run(String)
        case wait(String, timeout: Double)
        case screenshot(URL, width: Int, height: Int)

        var json: [String: Any] {
            switch self {
            case .goto(let url): ["goto": url]
            case .eval(let script): ["eval": script]
            case .run(let script): ["do": script]
            case .wait(let script, let timeout): ["wait": script, "timeout": timeout]
            case .screenshot(let file, let width, let height):
                ["screenshot": file.path, "width": width, "height": height]
            }
        }
    }

    let h: Harness

    /// Runs `steps` in one browser (one profile per harness, so a login's cookie stays for the next run) and
    /// returns the values of the `.eval` steps; a failed step throws naming it.
    func run(_ steps: [Step]) throws -> [Any] {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let chromium else {
            throw HarnessError("chromium is not installed (Deploy/test.sh installs Debian's chromium)")
        }
        let script = h.root.appendingPathComponent("cdp-driver.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let stepsFile = h.root.appendingPathComponent("cdp-steps-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: steps.map(\.json)).write(to: stepsFile)
        let profile = h.root.appendingPathComponent("chromium-profile").path
        let (status, out) = try TestMedia.shOutput(
            "timeout 120 /usr/bin/python3 \(script.path) \(chromium) \(profile) \(stepsFile.path)", in: h.root)
        guard status == 0 else { throw HarnessError("chromium driver exited \(status): \(out.prefix(2000))") }
        let parsed = try JSONSerialization.jsonObject(with: Data(out.utf8), options: [.fragmentsAllowed])
        guard let values = parsed as? [Any] else { throw HarnessError("chromium driver printed \(out.prefix(500))") }
        return values
    }

    static let script = """
        import base64, fcntl, json, os, subprocess, sys, time

        # Drives headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: the browser
        # reads commands on fd 3 and writes answers on fd 4, each a JSON text ended by NUL). Steps (a JSON array):
        # {"goto": URL}, {"eval": JS} (its value is printed), {"do": JS} (for its effect), {"wait": JS, "timeout": S}
        # (until JS is truthy), {"screenshot": PATH, "width": W, "height": H}. Prints one JSON array of the evals'
        # values; exits 1 naming the step that failed.
        chrome, profile, steps_path = sys.argv[1:4]
        steps = json.load(open(steps_path))
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 20)
        high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 20)

        def child():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        proc = subprocess.Popen(
            [chrome, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "about:blank"],
            pass_fds=(3, 4), preexec_fn=child, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r); os.close(from_chrome_w); os.close(high_r); os.close(high_w)
        NUL = bytes([0])
        buffer = b""
        next_id = [0]

        def send(method, params=None, session=None):
            global buffer
            next_id[0] += 1
            message = {"id": next_id[0], "method": method, "params": params or {}}
            if session:
                message["sessionId"] = session
            os.write(to_chrome_w, json.dumps(message).encode() + NUL)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                while NUL in buffer:
                    text, buffer = buffer.split(NUL, 1)
                    answer = json.loads(text)
                    if answer.get("id") == next_id[0]:
                        if "error" in answer:
                            raise RuntimeError(method + ": " + json.dumps(answer["error"]))
                        return answer.get("result", {})
                chunk = os.read(from_chrome_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe during " + method)
                buffer += chunk
            raise RuntimeError("no answer to " + method)

        def evaluate(session, expression):
            result = send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                          session)
            if "exceptionDetails" in result:
                raise RuntimeError("script failed: " + json.dumps(result["exceptionDetails"])[:500])
            return result.get("result", {}).get("value")

        values = []
        try:
            target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            send("Page.enable", {}, session)
            for number, step in enumerate(steps):
                try:
                    if "goto" in step:
                        send("Page.navigate", {"url": step["goto"]}, session)
                        deadline = time.monotonic() + 30
                        while evaluate(session, "document.readyState") != "complete":
                            if time.monotonic() > deadline:
                                raise RuntimeError("the page did not load")
                            time.sleep(0.1)
                    elif "eval" in step:
                        values.append(evaluate(session, step["eval"]))
                    elif "do" in step:
                        evaluate(session, step["do"])
                    elif "wait" in step:
                        deadline = time.monotonic() + step.get("timeout", 30)
                        while not evaluate(session, step["wait"]):
                            if time.monotonic() > deadline:
                                raise RuntimeError("timed out waiting for " + step["wait"])
                            time.sleep(0.2)
                    elif "screenshot" in step:
                        send("Emulation.setDeviceMetricsOverride", {"width": step.get("width", 1280),
                             "height": step.get("height", 900), "deviceScaleFactor": 1, "mobile": False}, session)
                        shot = send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session)
                        open(step["screenshot"], "wb").write(base64.b64decode(shot["data"]))
                except Exception as error:
                    print(json.dumps({"failedStep": number, "step": step, "error": str(error),
                                      "values": values}))
                    sys.exit(1)
            print(json.dumps(values))
        finally:
            try:
                send("Browser.close")
            except Exception:
                pass
            try:
                proc.wait(timeout=10)
            except Exception:
                proc.kill()
        """
}
