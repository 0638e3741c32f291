import StowageProtocol
import StowageSchedulerCore

/// `/console`: the operator's page (admin only). Self-contained like the library (its script and style are
/// `/console.js` and `/console.css`; the content security policy allows no inline ones).
///
/// Each title is a `<tr class="title" data-token="TOKEN" data-state="STATE">` with `.name`, `.ids` (token and id),
/// `.source`, `.state`, `.reason`, `.progress` (`42%`), `.bytes`, `.rate`, `.license` and one
/// `button.action[data-action]` per action its state accepts (``ConsoleActions``). The add-title form
/// (`form#add-title`) shows the variants and the estimate (`#preview`) before its "Add" button submits. The
/// box's part (`#box`) holds the disk and the quota (`#disk`), what would be evicted next (`#evictable`), the
/// catalogue (`#catalog`), the notifications waiting (`#notify`) and the workers (`#workers`).
enum ConsolePage {
    /// The nav every admin page starts its body with.
    static let nav =
        "<nav class=\"console-nav\"><a href=\"/\">Library</a> <a href=\"/console\">Console</a> "
        + "<a href=\"/console/devices\">Devices</a></nav>"

    static func render(_ titles: [ConsoleTitle], box: ConsoleBox, csrfToken: String?) -> String {
        let token = escape(csrfToken ?? "")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="csrf-token" content="\(token)">
            <title>Stowage console</title>
            <link rel="stylesheet" href="\(ConsoleAssets.stylePath)"></head>
            <body class="console">
            \(nav)
            <header><h1>Stowage console</h1>
            <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="\(token)">\
            <button>Log out</button></form></header>
            <main>
            <section id="add" aria-labelledby="add-heading"><h2 id="add-heading">Add a title</h2>
            \(addForm)
            </section>
            <section id="titles-part" aria-labelledby="titles-heading"><h2 id="titles-heading">Titles</h2>
            <div class="scroll"><table id="titles"><thead><tr><th>Title</th><th>Token · id</th><th>Source</th>
            <th>State</th><th>Progress</th><th>License</th><th>Actions</th></tr></thead>
            <tbody>
            \(rows(titles))
            </tbody></table></div>
            <p id="empty"\(titles.isEmpty ? "" : " hidden")>No titles yet: add one above, or with \
            <code>stowctl submit URL</code>.</p>
            </section>
            <section id="box" aria-labelledby="box-heading"><h2 id="box-heading">The box</h2>
            <div id="box-body">\(ConsoleBoxPart.render(box))</div>
            </section>
            </main>
            <script src="\(ConsoleAssets.scriptPath)"></script>
            </body></html>
            """
    }

    /// The form's first step asks for the variants and the estimate (`POST /api/console/preview`); its second
    /// (`#submit-title`, shown with them) adds the title (`POST /api/titles`).
    static let addForm = """
        <form id="add-title" autocomplete="off">
        <label>Playlist URL (HLS or DASH) <input type="url" name="url" id="add-url" required \
        placeholder="https://cdn.example/movie/master.m3u8"></label>
        <label>Name (optional) <input type="text" name="name" id="add-name" maxlength="200"></label>
        <fieldset><legend>Selection</legend>
        <label>Highest bitrate (bit/s) <input type="number" name="bitrate" id="add-bitrate" min="1" \
        placeholder="lowest with video"></label>
        <label>Max height (pixels) <input type="number" name="maxHeight" id="add-max-height" min="1"></label>
        <label>Audio languages <input type="text" name="audio" id="add-audio" placeholder="default, or en,fr"></label>
        <label>Subtitles <input type="text" name="subtitles" id="add-subtitles" placeholder="none, all, or en,fr">\
        </label>
        </fieldset>
        <button type="submit" id="preview-title">Show variants and estimate</button>
        <p id="add-status" role="status" aria-live="polite"></p>
        <div id="preview" hidden>
        <table id="variants"><thead><tr><th>#</th><th>Bandwidth</th><th>Picture</th><th>Codecs</th><th>Audio</th>
        <th>Subtitles</th></tr></thead><tbody></tbody></table>
        <ul id="renditions"></ul>
        <p id="estimate"></p>
        <button type="button" id="submit-title">Add this title</button>
        </div>
        </form>
        """

    static func rows(_ titles: [ConsoleTitle]) -> String {
        titles.map(row).joined(separator: "\n")
    }

    static func row(_ t: ConsoleTitle) -> String {
        let percent = Int((t.progress * 100).rounded(.down))
        let actions = t.actions.map {
            "<button class=\"action\" data-action=\"\(escape($0))\">\(escape($0))</button>"
        }.joined()
        let ids = "<code>\(escape(t.token))</code>" + (t.id.map { " · <code>\(escape($0))</code>" } ?? "")
        let requested = t.requestedAt.map { "<span class=\"when\">asked \(escape(BoxTime.words($0)))</span>" }
        return """
            <tr class="title" data-token="\(escape(t.token))" data-state="\(t.state.rawValue)">\
            <td class="name">\(escape(t.name ?? "(no name)"))\(t.pinned ? " <span class=\"pin\">pinned</span>" : "")\
            </td><td class="ids">\(ids)</td>\
            <td class="source"><span class="url">\(escape(t.source))</span>\(requested.map { "<br>" + $0 } ?? "")</td>\
            <td><span class="state">\(escape(t.stateText))</span>\
            <div class="reason">\(escape(t.reason ?? ""))</div></td>\
            <td><progress class="bar" max="100" value="\(percent)"></progress> \
            <span class="progress">\(percent)%</span>\
            <div><span class="bytes">\(escape(bytes(t)))</span> <span class="rate"></span></div></td>\
            <td class="license">\(escape(t.license))</td><td class="actions">\(actions)</td></tr>
            """
    }

    /// `12.3 MiB of 40.0 MiB`, or what is downloaded when the size is not known yet.
    static func bytes(_ t: ConsoleTitle) -> String {
        let done = DiskLedger.describe(t.bytesDownloaded)
        guard let expected = t.bytesExpected, expected > 0 else { return done }
        return "\(done) of \(DiskLedger.describe(expected))"
    }

    static func escape(_ text: String) -> String { Markup.escape(text) }
}
