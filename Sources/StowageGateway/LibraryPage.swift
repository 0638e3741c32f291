import Foundation
import StowageProtocol

/// `/`: the library, for the people watching, self-contained (no script, style or font from outside the box; its
/// script and style are `/app.js` and `/app.css`, as the content security policy allows no inline ones). It shows
/// what ``LibraryVisibility`` lets a viewer see: titles playable now, each a `<li class="title" data-shelf=
/// "playable">` with its poster, name, facts (duration, size, languages, subtitles), license in words and a Play
/// link to its play page; titles on their way as `data-shelf="coming"` with `.progress` (`42%`) and no play link.
/// Every card carries `data-token`, `data-name`, `data-added` and `data-duration` for the script's search and sort
/// (by name, newest, duration). Progress moves live through `/events` (the body's `data-events`: `connecting`,
/// then `open` while it flows, `closed`). The admin gets the same library and the console's navigation; managing
/// titles is the console's.
/// A page of a login session carries the session's CSRF token (`<meta name="csrf-token">`, and a hidden
/// `csrf` field of the logout form), which the script sends back as `X-CSRF-Token`.
enum LibraryPage {
    /// The navigation every admin page starts with.
    static let adminNav =
        "<nav class=\"console-nav\"><a href=\"/\">Library</a> <a href=\"/console\">Console</a> "
        + "<a href=\"/console/devices\">Devices</a></nav>"

    static func render(_ entries: [LibraryEntry], principal: Principal, csrfToken: String?) -> String {
        let cards = entries.map(card).joined(separator: "\n")
        let who = escape(principal.name)
        let token = escape(csrfToken ?? "")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="csrf-token" content="\(token)">
            <title>Stowage library</title>
            <link rel="stylesheet" href="\(LibraryAssets.stylePath)"></head>
            <body class="library" data-admin="\(principal.isAdmin)">
            \(principal.isAdmin ? adminNav : "")
            <header><h1>Stowage library</h1><span class="who">\(who) ·
            <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="\(token)">\
            <button>Log out</button></form></span></header>
            <div class="tools" role="search">
            <label>Search <input type="search" id="search" placeholder="Title name" autocomplete="off"></label>
            <label>Sort <select id="sort"><option value="name">Name</option><option value="newest">Newest</option>\
            <option value="duration">Duration</option></select></label>
            </div>
            <ul id="library" class="cards">
            \(cards)
            </ul>
            <p id="empty"\(entries.isEmpty ? "" : " hidden")>Nothing to watch yet.</p>
            <p id="no-match" hidden>No title matches your search.</p>
            <script src="\(LibraryAssets.scriptPath)"></script>
            </body></html>
            """
    }

    static func card(_ entry: LibraryEntry) -> String {
        let s = entry.status
        let token = escape(s.token)
        let name = s.name ?? "Untitled"
        let coming = entry.shelf != .playable
        let picture =
            entry.poster.map { "<img class=\"poster\" src=\"\(escape($0))\" alt=\"\" loading=\"lazy\">" }
            ?? "<div class=\"poster none\" aria-hidden=\"true\">\(escape(String(name.prefix(1)).uppercased()))</div>"
        let percent = Int((s.progress * 100).rounded(.down))
        let action =
            coming
            ? "<p class=\"coming\">Coming soon · <span class=\"progress\">\(percent)%</span>"
                + "<progress class=\"bar\" max=\"100\" value=\"\(percent)\"></progress></p>"
            : "<a class=\"play\" href=\"\(escape(entry.play))\">Play<span class=\"visually-hidden\"> \(escape(name))"
                + "</span></a>"
        let duration = entry.facts?.durationSeconds.map { String(Int($0.rounded())) } ?? ""
        return """
            <li class="title" data-token="\(token)" data-shelf="\(coming ? "coming" : "playable")" \
            data-name="\(escape(name.lowercased()))" data-added="\(escape(s.requestedAt ?? ""))" \
            data-duration="\(duration)">\
            \(picture)<div class="about"><h2 class="name">\(escape(name))\(recorded(s))</h2>\
            <p class="facts">\(escape(factsText(entry.facts)))</p>\
            <p class="license">\(escape(coming ? "" : entry.licenseText))</p>\(action)</div></li>
            """
    }

    /// "12 min · 340 MB · Audio: English, Deutsch · Subtitles: Français" (what is known of the copy).
    static func factsText(_ facts: TitleFacts?) -> String {
        guard let facts else { return "" }
        var parts: [String] = []
        if let seconds = facts.durationSeconds { parts.append(LicenseWords.duration(seconds)) }
        if facts.sizeBytes > 0 { parts.append(size(facts.sizeBytes)) }
        if !facts.audio.isEmpty {
            parts.append("Audio: " + facts.audio.map(LanguageNames.name).joined(separator: ", "))
        }
        if !facts.subtitles.isEmpty {
            parts.append("Subtitles: " + facts.subtitles.map(LanguageNames.name).joined(separator: ", "))
        }
        return parts.joined(separator: " · ")
    }

    /// Bytes as "340 MB", "1.2 GB" (decimal units, as disks are sold).
    static func size(_ bytes: Int64) -> String {
        let value = Double(bytes)
        if value >= 1e9 { return String(format: "%.1f GB", value / 1e9) }
        if value >= 1e6 { return "\(Int((value / 1e6).rounded())) MB" }
        return "\(max(1, Int((value / 1e3).rounded()))) kB"
    }

    static func recorded(_ s: TitleStatus) -> String {
        guard let seconds = s.recordedSeconds else { return "" }
        return " <span class=\"recorded\">(\(Int(seconds)) s recorded)</span>"
    }

    /// HTML-escapes text for element content and attribute values.
    static func escape(_ text: String) -> String { Markup.escape(text) }
}
