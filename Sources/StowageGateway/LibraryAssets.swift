import Hummingbird

/// The library, play and login pages' script and style, served as files (`/app.js`, `/play.js`, `/app.css`) to
/// anyone: the content security policy allows no inline script or style, and they hold nothing secret.
enum LibraryAssets {
    static let scriptPath = "/app.js"
    static let playScriptPath = "/play.js"
    static let stylePath = "/app.css"

    /// `GET /app.js`, `/play.js` or `/app.css`.
    static func response(_ path: String) -> Response {
        let (type, text) =
            switch path {
            case scriptPath: ("text/javascript; charset=utf-8", script)
            case playScriptPath: ("text/javascript; charset=utf-8", PlayScript.text)
            default: ("text/css; charset=utf-8", style)
            }
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Large type and targets (a TV across the room, a finger on a phone), a visible focus ring (a remote's arrow
    /// keys, a keyboard), one column on a phone.
    static let style = """
        body.library { font-family: system-ui, sans-serif; background: #111; color: #eee; margin: 0 auto;
          padding: 0 1.2em 2em; max-width: 1400px; font-size: 1.05rem; }
        header { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: .5em; }
        a { color: #8cf; }
        :focus-visible { outline: 3px solid #fc4; outline-offset: 2px; }
        .console-nav { display: flex; gap: 1em; padding: .6em 0; border-bottom: 1px solid #333; }
        .tools { display: flex; flex-wrap: wrap; gap: 1em; margin: .5em 0 1em; }
        .tools input, .tools select, .choices select { font-size: 1em; padding: .4em .6em; border-radius: 6px;
          border: 1px solid #555; background: #222; color: #eee; }
        .cards { list-style: none; padding: 0; margin: 0; display: grid; gap: 1em;
          grid-template-columns: repeat(auto-fill, minmax(15em, 1fr)); }
        .title { background: #1c1c1c; border-radius: 10px; overflow: hidden; display: flex; flex-direction: column; }
        .title[hidden] { display: none; }
        .poster { width: 100%; aspect-ratio: 16 / 9; object-fit: cover; background: #2a2a2a; display: block; }
        .poster.none { display: grid; place-items: center; font-size: 3em; color: #666; }
        .about { padding: .6em .8em .9em; display: flex; flex-direction: column; gap: .3em; flex: 1; }
        .about h2 { font-size: 1.1em; margin: 0; }
        .about p { margin: 0; color: #bbb; font-size: .9em; }
        .title[data-shelf="coming"] { opacity: .75; }
        a.play { margin-top: auto; align-self: flex-start; background: #2a6; color: #fff; text-decoration: none;
          padding: .45em 1.2em; border-radius: 6px; font-weight: 600; }
        progress.bar { height: 6px; width: 100%; accent-color: #2a6; display: block; margin-top: .3em; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        button { background: #333; color: #eee; border: 1px solid #555; border-radius: 4px; padding: .2em .6em;
          cursor: pointer; }
        .inline { display: inline; }
        .recorded { color: #aaa; font-size: .9em; }
        body[data-events="open"] .who::before { content: "● live · "; color: #2a6; }
        body.play main { display: flex; flex-direction: column; gap: .8em; }
        body.play video { width: 100%; max-height: 75vh; background: #000; border-radius: 8px; }
        .choices { display: flex; flex-wrap: wrap; gap: 1.2em; }
        .notice { background: #332; padding: 1em; border-radius: 8px; }
        @media (max-width: 600px) { .cards { grid-template-columns: 1fr; } h1 { font-size: 1.3em; } }
        body.login { font-family: system-ui, sans-serif; background: #111; color: #eee; display: grid;
          place-items: center; min-height: 100vh; margin: 0; }
        body.login form { background: #1d1d1d; padding: 2em; border-radius: 8px; display: grid; gap: 1em;
          width: 20em; }
        body.login input, body.login button { font-size: 1em; padding: .5em; border-radius: 4px;
          border: 1px solid #444; }
        body.login button { background: #2a6; color: #fff; border: 0; cursor: pointer; }
        .error { color: #f77; margin: 0; }
        """

    /// Search and sort in the page, live progress of coming titles through `/events`; a title that becomes
    /// playable, or a new one, reloads the page (the server renders cards: one rendering, not two).
    static let script = """
        (function () {
          var list = document.getElementById('library');
          if (!list) { return; }
          var search = document.getElementById('search');
          var sort = document.getElementById('sort');
          function cards() { return Array.prototype.slice.call(list.querySelectorAll('li.title')); }
          function arrange() {
            var q = (search.value || '').trim().toLowerCase();
            var how = sort.value;
            var shown = 0;
            var all = cards();
            all.sort(function (a, b) {
              if (how === 'newest') {
                return (b.getAttribute('data-added') || '').localeCompare(a.getAttribute('data-added') || '');
              }
              if (how === 'duration') {
                return (Number(b.getAttribute('data-duration')) || 0) - (Number(a.getAttribute('data-duration')) || 0);
              }
              return a.getAttribute('data-name').localeCompare(b.getAttribute('data-name'));
            });
            all.forEach(function (card) {
              var match = q === '' || card.getAttribute('data-name').indexOf(q) >= 0;
              card.hidden = !match;
              if (match) { shown += 1; }
              list.appendChild(card);
            });
            document.getElementById('no-match').hidden = shown > 0 || all.length === 0;
            document.body.setAttribute('data-shown', String(shown));
          }
          search.addEventListener('input', arrange);
          sort.addEventListener('change', arrange);
          arrange();
          var reloading = false;
          function reload() {
            if (!reloading) { reloading = true; setTimeout(function () { location.reload(); }, 500); }
          }
          function update(t) {
            var card = list.querySelector('li.title[data-token="' + t.token + '"]');
            if (!t.shelf) { if (card) { card.remove(); } return; }
            if (!card || card.getAttribute('data-shelf') !== t.shelf) { reload(); return; }
            var progress = card.querySelector('.progress');
            if (progress) {
              progress.textContent = Math.floor(t.progress * 100) + '%';
              card.querySelector('progress.bar').value = Math.floor(t.progress * 100);
            }
            if (t.recordedSeconds !== null && t.recordedSeconds !== undefined) {
              var rec = card.querySelector('.recorded');
              if (rec) { rec.textContent = '(' + Math.floor(t.recordedSeconds) + ' s recorded)'; }
            }
          }
          if (window.EventSource) {
            document.body.setAttribute('data-events', 'connecting');
            var events = new EventSource('/events');
            events.onopen = function () { document.body.setAttribute('data-events', 'open'); };
            events.onerror = function () { document.body.setAttribute('data-events', 'closed'); };
            events.onmessage = function (e) { try { update(JSON.parse(e.data)); } catch (err) {} };
            events.addEventListener('remove', function (e) {
              try {
                var card = list.querySelector('li.title[data-token="' + JSON.parse(e.data).token + '"]');
                if (card) { card.remove(); }
              } catch (err) {}
            });
          }
        })();
        """
}
