import Foundation

/// What a download worker was leased, from its own log: started with ``fetchTaskLogging`` it writes one JSON line
/// per fetch task naming the files (`"fetch task"`, `files`: paths under `titles/`), so a test can compare the
/// leases with the files the store holds.
extension Harness {
    /// The environment that makes a worker log each fetch task's files (debug level, JSON lines).
    public static let fetchTaskLogging = ["STOWAGE_LOG_LEVEL": "debug", "STOWAGE_LOG_FORMAT": "json"]

    /// The length in bytes of a process's log now: a mark to read what it logs later.
    public func logMark(_ name: String) -> Int { log(name).utf8.count }

    /// The files of every fetch task process `name` logged after `mark` (``logMark(_:)``), in order, as
    /// `TOKEN/LOCAL-PATH`.
    public func fetchTaskFiles(_ name: String, after mark: Int = 0) -> [String] {
        let text = String(decoding: Array(log(name).utf8.dropFirst(mark)), as: UTF8.self)
        return text.split(separator: "\n").flatMap { line -> [String] in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["message"] as? String == "fetch task", let files = object["files"] as? String,
                let list = try? JSONSerialization.jsonObject(with: Data(files.utf8)) as? [String]
            else { return [] }
            return list
        }
    }

    /// Every file of a title as the store records it (read with sqlite3, e.g. while the scheduler is down): its
    /// path as a fetch task names it (`TOKEN/LOCAL-PATH`) and its state (`pending`, `fetching`, `verified` …).
    public func resourceStates(_ token: String) throws -> [(path: String, state: String)] {
        let rows = try storeQuery("SELECT state, localPath FROM resource WHERE token = '\(token)'", separator: " ")
        return rows.split(separator: "\n").compactMap { row in
            let parts = row.split(separator: " ", maxSplits: 1)
            return parts.count == 2 ? (path: "\(token)/\(parts[1])", state: String(parts[0])) : nil
        }
    }
}
