import Foundation
import StowageProtocol

/// `/`: the library, self-contained (no script, style or font from outside the box). Each title is a
/// `<tr class="title" data-token="TOKEN">` with `.name`, `.state`, `.progress` (`42%`), `.license`,
/// `.playable`; progress moves live through `/events`. An admin also gets pause / resume / renew / delete.
enum LibraryPage {
    static func render(_ entries: [LibraryEntry], principal: Principal) -> String {
        let rows = entries.map { row($0, admin: principal.isAdmin) }.joined(separator: "\n")
        let who = escape(principal.name)
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Stowage library</title>
            <style>\(style)</style></head>
            <body data-admin="\(principal.isAdmin)">
            <header><h1>Stowage library</h1><span class="who">\(who) ·
            <form method="post" action="/logout" class="inline"><button>Log out</button></form></span></header>
            <table id="library"><thead><tr><th></th><th>Title</th><th>State</th><th>Progress</th>
            <th>License</th><th>Playable</th>\(principal.isAdmin ? "<th>Manage</th>" : "")</tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            <p id="empty"\(entries.isEmpty ? "" : " hidden")>No titles yet.</p>
            <div id="player" hidden><video id="video" controls playsinline></video>
            <button id="close-player">Close</button></div>
            <script>\(script)</script>
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
                + TitleAction.allCases.map {
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
            <td><div class="bar"><div class="fill" style="width:\(percent)%"></div></div>\
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
        if let time = license.playTimeRemainingSeconds { parts.append("\(Int(time)) s of play left") }
        if license.expired { parts.append("expired") }
        return parts.joined(separator: ", ")
    }

    /// HTML-escapes text for element content and attribute values.
    static func escape(_ text: String) -> String { Markup.escape(text) }

    static let style = """
        body { font-family: system-ui, sans-serif; background: #111; color: #eee; margin: 0 1.5em; }
        header { display: flex; justify-content: space-between; align-items: center; }
        table { border-collapse: collapse; width: 100%; }
        th, td { padding: .4em .6em; border-bottom: 1px solid #333; text-align: left; vertical-align: middle; }
        .poster { width: 64px; height: 36px; object-fit: cover; border-radius: 3px; }
        .bar { background: #333; height: 6px; width: 8em; border-radius: 3px; display: inline-block; }
        .fill { background: #2a6; height: 100%; border-radius: 3px; transition: width .5s; }
        button { background: #333; color: #eee; border: 1px solid #555; border-radius: 4px; padding: .2em .6em;
          cursor: pointer; margin-right: .2em; }
        .inline { display: inline; }
        #player { position: fixed; inset: 10%; background: #000; padding: 1em; border-radius: 8px; }
        #player video { width: 100%; max-height: 90%; }
        .recorded { color: #aaa; font-size: .9em; }
        """

    static let script = """
        (function () {
          var video = document.getElementById('video');
          var hls = video.canPlayType('application/vnd.apple.mpegurl') !== '';
          function pct(p) { return Math.floor(p * 100) + '%'; }
          function wire(row) {
            var play = row.querySelector('button.play');
            if (play) {
              if (!hls) { play.disabled = true; play.title = 'This browser does not play HLS itself'; }
              play.onclick = function () {
                document.getElementById('player').hidden = false;
                video.src = play.getAttribute('data-entry'); video.play();
              };
            }
            row.querySelectorAll('button.action').forEach(function (b) {
              b.onclick = function () {
                var action = b.getAttribute('data-action');
                if (action === 'delete' && !confirm('Delete this title and its files?')) { return; }
                fetch('/api/titles/' + row.getAttribute('data-token') + '/' + action,
                      { method: 'POST', credentials: 'same-origin' })
                  .then(function (r) { return r.json(); })
                  .then(function (j) { if (j.error) { alert(j.error.message); } });
              };
            });
          }
          document.querySelectorAll('tr.title').forEach(wire);
          document.getElementById('close-player').onclick = function () {
            video.pause(); video.removeAttribute('src'); document.getElementById('player').hidden = true;
          };
          function update(t) {
            var row = document.querySelector('tr.title[data-token="' + t.token + '"]');
            if (!row) { location.reload(); return; }
            row.querySelector('.progress').textContent = pct(t.progress);
            row.querySelector('.fill').style.width = pct(t.progress);
            var state = t.state;
            if (t.state === 'suspended' && t.suspendedReason) { state += ' (' + t.suspendedReason + ')'; }
            if (t.state === 'failed' && t.error) { state += ' (' + t.error.code + ')'; }
            row.querySelector('.state').textContent = state;
            var cell = row.querySelector('.playable');
            var playable = !!cell.querySelector('button.play');
            if (playable !== t.playableOffline) {
              if (t.playableOffline) {
                cell.innerHTML = '';
                var b = document.createElement('button');
                b.className = 'play'; b.textContent = 'Play'; b.setAttribute('data-entry', t.entry);
                cell.appendChild(b); wire(row);
              } else { cell.textContent = t.playReason || 'not playable'; }
            }
            if (t.recordedSeconds !== null && t.recordedSeconds !== undefined) {
              var rec = row.querySelector('.recorded');
              if (rec) { rec.textContent = '(' + Math.floor(t.recordedSeconds) + ' s recorded)'; }
            }
          }
          if (window.EventSource) {
            var events = new EventSource('/events');
            events.onmessage = function (e) { try { update(JSON.parse(e.data)); } catch (err) {} };
          }
        })();
        """
}
