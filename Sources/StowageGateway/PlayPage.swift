import Foundation
import StowageProtocol

/// `/play/<token>`: one title's player, self-contained (its script is `/play.js`, its style `/app.css`). HLS is
/// played by the browser itself, but a native player cannot be counted on to offer an HLS stream's audio or
/// subtitle renditions, so the page offers them: each subtitle language is a `<track>` of one joined WebVTT file
/// (`/titles/<token>/subtitles/<lang>.vtt`), each audio language a master narrowed to it
/// (`/titles/<token>/master-audio-<lang>.m3u8`). A DASH title is said to be unplayable in the browser, with the
/// link a DASH player can open (browsers have no native DASH, and the box serves no script player from outside).
///
/// The page's state is observable on `<body>`: `data-state` (`ready`, `playing`, `paused`, `ended`, `error`,
/// `unsupported`, `blocked` when autoplay was refused), `data-current-time`, `data-audio`, `data-subtitles` (the
/// language chosen, empty when off), `data-cue` (the last cue shown) and `data-text-track` (the language of the
/// track that showed it). `#autoplay&audio=de&subtitles=fr`
/// in the address chooses and starts at once (a kiosk, a link from a lesson plan).
enum PlayPage {
    static let prefix = "/play/"

    static func path(_ token: String) -> String { prefix + token }

    static func render(_ entry: LibraryEntry, principal: Principal) -> String {
        let s = entry.status
        let name = escape(s.name ?? "Untitled")
        let facts = entry.facts
        let token = escape(s.token)
        let poster = entry.poster.map { " poster=\"\(escape($0))\"" } ?? ""
        let player: String
        if facts?.dash == true {
            player = """
                <p class="notice" id="unsupported">This title is an MPEG-DASH presentation, which this browser cannot \
                play by itself. Open <a href="\(escape(entry.entry))">its manifest</a> in a DASH player (VLC, an \
                ExoPlayer-based app) on a device signed in to this box.</p>
                """
        } else {
            let tracks = (facts?.subtitles ?? []).map {
                "<track kind=\"subtitles\" srclang=\"\(escape($0))\" label=\"\(escape(LanguageNames.name($0)))\" "
                    + "src=\"/titles/\(token)/subtitles/\(escape($0)).vtt\">"
            }.joined()
            let audio = (facts?.audio ?? []).map {
                "<option value=\"\(escape($0))\" data-src=\"/titles/\(token)/master-audio-\(escape($0)).m3u8\">"
                    + "\(escape(LanguageNames.name($0)))</option>"
            }.joined()
            let subtitles =
                "<option value=\"\">Off</option>"
                + (facts?.subtitles ?? []).map {
                    "<option value=\"\(escape($0))\">\(escape(LanguageNames.name($0)))</option>"
                }.joined()
            player = """
                <video id="video" controls playsinline preload="metadata" data-src="\(escape(entry.entry))"\(poster)>\
                \(tracks)</video>
                <p class="notice" id="unsupported" hidden>This browser cannot play HLS video by itself. Safari, \
                Chromium-based browsers and most TV browsers can.</p>
                <div class="choices">
                <label\((facts?.audio.count ?? 0) > 1 ? "" : " hidden")>Audio <select id="audio">\(audio)</select>\
                </label>
                <label\((facts?.subtitles.isEmpty ?? true) ? " hidden" : "")>Subtitles \
                <select id="subtitles">\(subtitles)</select></label>
                </div>
                """
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(name) · Stowage</title>
            <link rel="stylesheet" href="\(LibraryAssets.stylePath)"></head>
            <body class="library play" data-token="\(token)" data-state="ready" data-subtitles="" data-cue="">
            \(principal.isAdmin ? LibraryPage.adminNav : "")
            <header><a class="back" href="/">← Library</a><h1>\(name)</h1></header>
            <main>
            \(player)
            \(download(s))
            <p class="facts">\(escape(LibraryPage.factsText(facts)))</p>
            <p class="license">\(escape(entry.licenseText))</p>
            </main>
            <script src="\(LibraryAssets.playScriptPath)"></script>
            </body></html>
            """
    }

    /// The box's single file (`submit --file`) as a download link, once it is written: for a TV, a USB player or
    /// a laptop that wants one `.mp4`/`.mkv` (served with ranges, under the same credentials as the copy).
    static func download(_ s: TitleStatus) -> String {
        guard let file = s.file, file.state == .written else { return "" }
        let size = file.bytes.map { " (\(ByteSize(bytes: $0).description))" } ?? ""
        return "<p class=\"download\"><a id=\"single-file\" href=\"/titles/\(escape(s.token))/"
            + "\(file.format.fileName)\" download>Download \(file.format.fileName)\(size)</a></p>"
    }

    static func escape(_ text: String) -> String { Markup.escape(text) }
}
