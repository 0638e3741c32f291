import Foundation
import StowageProtocol

/// `/`: the library, self-contained (no script, style or font from outside the box; its script and style are
/// `/app.js` and `/app.css`, as the content security policy allows no inline ones). Each title is a
/// `<tr class="title" data-token="TOKEN">` with `.name`, `.state`, `.progress` (`42%`), `.license`,
/// `.playable`; progress moves live through `/events` (the body's `data-events`: `connecting`, then `open`
/// while it flows, `closed`). An admin also gets pause / resume / renew / delete.
/// A page of a login session carries the session's CSRF token (`<meta name="csrf-token">`, and a hidden
/// `csrf` field of the logout form), which the script sends back as `X-CSRF-Token`.
enum LibraryPage {
    static func render(_ entries: [LibraryEntry], principal: Principal, csrfToken: String?) -> String {
        let rows = entries.map { row($0, admin: principal.isAdmin) }.joined(separator: "\n")
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
            <header><h1>Stowage library</h1><span class="who">\(who) ·
            <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="\(token)">\
            <button>Log out</button></form></span></header>
            <table id="library"><thead><tr><th></th><th>Title</th><th>State</th><th>Progress</th>
            <th>License</th><th>Playable</th>\(principal.isAdmin ? "<th>Manage</th>" : "")</tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            <p id="empty"\(entries.isEmpty ? "" : " hidden")>No titles yet.</p>
            <div id="player" hidden><video id="video" controls playsinline></video>
            <button id="close-player">Close</button></div>
            <script src="\(LibraryAssets.scriptPath)"></script>
            </body></html>
            """
    }

    static func row(_ entry: LibraryEntry, admin: Bool) -> String {
        let s = entry.status
        let token = escape(s.token)
        let poster = entry.poster.map { "<img class=\"poster\" src=\"\(escape($0))\" alt=\"\">" } ?? ""
        let percent = Int((s.progress * 100).rounded(.down))
        let manage =
            admin
            ? "<td class=\"manage\">"
                + ConsoleActions.offered(s).map {
                    "<button class=\"action\" data-action=\"\($0.rawValue)\">\($0.rawValue)</button>"
                }.joined() + "</td>"
            : ""
        let play =
            s.playableOffline
            ? "<button class=\"play\" data-entry=\"\(escape(entry.entry))\">Play</button>"
            : escape(entry.playReason ?? "not playable")
        return """
            <tr class="title" data-token="\(token)" data-entry="\(escape(entry.entry))">\
            <td>\(poster)</td><td class="name">\(escape(s.name ?? s.token))\(recorded(s))</td>\
            <td class="state">\(escape(stateText(s)))</td>\
            <td><progress class="bar" max="100" value="\(percent)"></progress>\
            <span class="progress">\(percent)%</span></td>\
            <td class="license">\(escape(licenseText(s.license)))</td>\
            <td class="playable">\(play)</td>\(manage)</tr>
            """
    }

    static func recorded(_ s: TitleStatus) -> String {
        guard let seconds = s.recordedSeconds else { return "" }
        return " <span class=\"recorded\">(\(Int(seconds)) s recorded)</span>"
    }

    static func stateText(_ s: TitleStatus) -> String {
        if s.state == .suspended, let reason = s.suspendedReason { return "suspended (\(reason.rawValue))" }
        if s.state == .failed, let error = s.error { return "failed (\(error.code.rawValue))" }
        return s.state.rawValue
    }

    static func licenseText(_ license: LicenseStatus?) -> String {
        guard let license else { return "—" }
        var parts = [license.kind.rawValue]
        if let expires = license.expiresAt { parts.append("until \(expires)") }
        if let plays = license.playsRemaining { parts.append("\(plays) plays left") }
        if let time = license.playTimeRemainingSeconds {
            parts.append("\(Int(min(max(time, 0), 1e12))) s of play left")
        }
        if license.expired { parts.append("expired") }
        return parts.joined(separator: ", ")
    }

    /// HTML-escapes text for element content and attribute values.
    static func escape(_ text: String) -> String { Markup.escape(text) }
}
