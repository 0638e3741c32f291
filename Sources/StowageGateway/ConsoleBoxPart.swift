import StowageProtocol
import StowageSchedulerCore

/// The console's part about the box (`#box`, and `GET /console/box` for the script's refresh): what `stowctl
/// stats`, `list --evictable`, `catalog status`, `notify status` and `workers` print, as HTML.
enum ConsoleBoxPart {
    static func render(_ box: ConsoleBox) -> String {
        [disk(box), evictable(box), catalog(box), notify(box), workers(box)].joined(separator: "\n")
    }

    static func disk(_ box: ConsoleBox) -> String {
        var lines: [String] = []
        if let disk = box.stats?.disk {
            let d = { DiskLedger.describe($0) }
            lines.append("<dt>Used by titles</dt><dd class=\"used\">\(d(disk.usedBytes))</dd>")
            lines.append("<dt>Free on disk</dt><dd class=\"free\">\(disk.freeBytes.map(d) ?? "unknown")</dd>")
            let quota = disk.quotaBytes.map { "\(d($0)) (stowage-scheduler --quota)" } ?? "none (no --quota)"
            lines.append("<dt>Quota</dt><dd class=\"quota\">\(escape(quota))</dd>")
            lines.append("<dt>Always kept free</dt><dd class=\"cushion\">\(d(disk.cushionBytes))</dd>")
        }
        if let s = box.stats {
            let titles = s.titles.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append("<dt>Titles</dt><dd>\(escape(titles.isEmpty ? "none" : titles.joined(separator: ", ")))</dd>")
            let rate = DiskLedger.describe(Int64(max(0, min(s.bytesPerSecond.isFinite ? s.bytesPerSecond : 0, 9e18))))
            lines.append("<dt>Throughput</dt><dd class=\"throughput\">\(rate)/s</dd>")
        }
        return "<div id=\"disk\"><h3>Disk and quota</h3>" + problem(box, "stats")
            + (lines.isEmpty ? "" : "<dl>" + lines.joined() + "</dl>") + "</div>"
    }

    static func evictable(_ box: ConsoleBox) -> String {
        var body = problem(box, "evictable")
        if let titles = box.evictable {
            if titles.isEmpty, let grace = box.stats?.evictionGraceSeconds, grace > 0 {
                // The start-up grace, as `stowctl list --evictable` says it.
                body +=
                    "<p>Nothing yet: for \(Int(grace.rounded(.up))) s more after the scheduler's start every title "
                    + "counts as being played (plays under way report first).</p>"
            } else if titles.isEmpty {
                body +=
                    "<p>Nothing would be evicted (no --quota, or every title pinned, recently played or "
                    + "unfinished).</p>"
            } else {
                body +=
                    "<ol>"
                    + titles.map {
                        "<li data-token=\"\(escape($0.token))\">\(escape($0.name ?? $0.token)) "
                            + "<code>\(escape($0.token))</code> \(escape(ConsolePage.bytes($0)))</li>"
                    }.joined() + "</ol>"
                if let count = box.evictableCount, count > titles.count {
                    body += "<p>… and \(count - titles.count) more (<code>stowctl list --evictable</code>).</p>"
                }
            }
        }
        return "<div id=\"evictable\"><h3>Evicted next under the quota</h3>\(body)</div>"
    }

    static func catalog(_ box: ConsoleBox) -> String {
        var body = problem(box, "catalog")
        if let c = box.catalog {
            if let version = c.version {
                body +=
                    "<p>Version \(version) from \(escape(c.source.map(URLRedaction.redacted) ?? "?"))"
                    + (c.appliedAt.map { ", applied \(escape(BoxTime.words($0)))" } ?? "") + ".</p>"
            } else {
                body += "<p>No catalogue applied (stowage-scheduler --catalog, or stowctl catalog apply).</p>"
            }
            if let error = c.lastError {
                body += "<p class=\"problem\">Last fetch refused: \(escape("\(error)"))</p>"
            }
            let phases = Dictionary(grouping: c.entries, by: \.phase).map { "\($0.key.rawValue) \($0.value.count)" }
            if !phases.isEmpty { body += "<p>Entries: \(escape(phases.sorted().joined(separator: ", ")))</p>" }
            let failed = c.entries.filter { $0.error != nil }.prefix(5)
            if !failed.isEmpty {
                body +=
                    "<ul>"
                    + failed.map {
                        "<li>\(escape($0.id)): \(escape($0.error?.message ?? ""))</li>"
                    }.joined() + "</ul>"
            }
        }
        return "<div id=\"catalog\"><h3>Catalogue</h3>\(body)</div>"
    }

    static func notify(_ box: ConsoleBox) -> String {
        var body = problem(box, "notify")
        if let n = box.notify {
            if n.receivers.isEmpty {
                body += "<p>No receivers (stowage-scheduler --notify URL).</p>"
            } else {
                body +=
                    "<ul>"
                    + n.receivers.map { r in
                        var text = "\(URLRedaction.redacted(r.url)): \(r.waiting) waiting"
                        if let oldest = r.oldestWaitingAt { text += " since \(BoxTime.words(oldest))" }
                        if r.failures > 0 { text += ", \(r.failures) failed attempts" }
                        if let error = r.lastError { text += " (\(error))" }
                        if let next = r.nextAttemptAt { text += ", next try \(BoxTime.words(next))" }
                        return "<li>\(escape(text))</li>"
                    }.joined() + "</ul>"
            }
        }
        return "<div id=\"notify\"><h3>Notifications</h3>\(body)</div>"
    }

    static func workers(_ box: ConsoleBox) -> String {
        var body = problem(box, "workers")
        if let workers = box.workers {
            body +=
                workers.isEmpty
                ? "<p>No workers connected.</p>"
                : "<ul>"
                    + workers.sorted { ($0.kind.rawValue, $0.id) < ($1.kind.rawValue, $1.id) }.map { w in
                        let text =
                            "\(w.kind.rawValue) \(w.id) on \(w.host) (pid \(w.pid)): \(w.tasksInHand)/\(w.capacity)"
                            + " tasks, " + (w.alive ? "alive" : "silent for \(Int(w.lastSeenSecondsAgo)) s")
                        return "<li>\(escape(text))</li>"
                    }.joined() + "</ul>"
        }
        return "<div id=\"workers\"><h3>Workers</h3>\(body)</div>"
    }

    /// A part the scheduler would not give, with its reason.
    static func problem(_ box: ConsoleBox, _ part: String) -> String {
        box.problems[part].map { "<p class=\"problem\">Not available: \(escape($0))</p>" } ?? ""
    }

    static func escape(_ text: String) -> String { Markup.escape(text) }
}
