import Foundation

/// Reading a process's Prometheus `/metrics` (`--metrics PORT`).
public enum Prometheus {
    /// The text exposition at `http://127.0.0.1:PORT/metrics`; throws when nothing answers.
    public static func scrape(_ port: Int) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["curl", "-sf", "--max-time", "5", "http://127.0.0.1:\(port)/metrics"]
        let (status, out) = try runCapturingOutput(p)
        guard status == 0 else { throw HarnessError("scraping :\(port)/metrics failed (curl exited \(status))") }
        return out
    }

    /// The value of one series (`name{labels}` exactly as exported), or nil.
    public static func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap {
            Double($0.split(separator: " ").last ?? "")
        }
    }
}
