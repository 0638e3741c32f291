import Foundation
import StowageTestSupport

/// Steps a test runs in headless Chromium as a person would (log in through the login form, type into a form, press
/// its buttons, then read the DOM), over ``DevToolsBrowser``: one browser per run, with the harness's profile so a
/// login's cookie stays for the next run.
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
    }

    let h: Harness

    /// Runs `steps` and returns the values of the `.eval` steps (JSON values; null as `NSNull`); a failed step
    /// throws naming it.
    func run(_ steps: [Step]) throws -> [Any] {
        let browser = try DevToolsBrowser(profile: h.root.appendingPathComponent("chromium-profile"))
        defer { browser.close() }
        var values: [Any] = []
        for step in steps {
            switch step {
            case .goto(let url):
                try browser.navigate(url)
                _ = try browser.waitFor(
                    "location.href !== 'about:blank' && document.readyState === 'complete'", timeout: 20,
                    "\(url) to load")
            case .eval(let script):
                values.append(try browser.evaluate(script) ?? NSNull())
            case .run(let script):
                _ = try browser.evaluate("(function () { \(script); return true; })()")
            case .wait(let script, let timeout):
                _ = try browser.waitFor("!!(\(script))", timeout: timeout, script)
            case .screenshot(let file, let width, let height):
                try browser.call(
                    "Emulation.setDeviceMetricsOverride",
                    ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
                try browser.screenshot().write(to: file)
            }
        }
        return values
    }
}
