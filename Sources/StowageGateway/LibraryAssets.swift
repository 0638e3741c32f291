import Hummingbird

/// The library and login pages' script and style, served as files (`/app.js`, `/app.css`) to anyone: the
/// content security policy allows no inline script or style, and they hold nothing secret.
enum LibraryAssets {
    static let scriptPath = "/app.js"
    static let stylePath = "/app.css"

    /// `GET /app.js` or `/app.css`.
    static func response(_ path: String) -> Response {
        let (type, text) =
            path == scriptPath ? ("text/javascript; charset=utf-8", script) : ("text/css; charset=utf-8", style)
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static let style = """
        body.library { font-family: system-ui, sans-serif; background: #111; color: #eee; margin: 0 1.5em; }
        header { display: flex; justify-content: space-between; align-items: center; }
        table { border-collapse: collapse; width: 100%; }
        th, td { padding: .4em .6em; border-bottom: 1px solid #333; text-align: left; vertical-align: middle; }
        .poster { width: 64px; height: 36px; object-fit: cover; border-radius: 3px; }
        progress.bar { height: 6px; width: 8em; accent-color: #2a6; vertical-align: middle; }
        button { background: #333; color: #eee; border: 1px solid #555; border-radius: 4px; padding: .2em .6em;
          cursor: pointer; margin-right: .2em; }
        .inline { display: inline; }
        #player { position: fixed; inset: 10%; background: #000; padding: 1em; border-radius: 8px; }
        #player video { width: 100%; max-height: 90%; }
        .recorded { color: #aaa; font-size: .9em; }
        body[data-events="open"] .who::before { content: "● live · "; color: #2a6; }
        body.login { font-family: system-ui, sans-serif; background: #111; color: #eee; display: grid;
          place-items: center; min-height: 100vh; margin: 0; }
        body.login form { background: #1d1d1d; padding: 2em; border-radius: 8px; display: grid; gap: 1em;
          width: 20em; }
        body.login input, body.login button { font-size: 1em; padding: .5em; border-radius: 4px;
          border: 1px solid #444; }
        body.login button { background: #2a6; color: #fff; border: 0; cursor: pointer; }
        .error { color: #f77; margin: 0; }
        """

    static let script = """
        (function () {
          var video = document.getElementById('video');
          if (!video) { return; }
          var tokenMeta = document.querySelector('meta[name="csrf-token"]');
          var csrf = tokenMeta ? tokenMeta.getAttribute('content') : '';
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
                      { method: 'POST', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf } })
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
            row.querySelector('progress.bar').value = Math.floor(t.progress * 100);
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
            document.body.setAttribute('data-events', 'connecting');
            var events = new EventSource('/events');
            events.onopen = function () { document.body.setAttribute('data-events', 'open'); };
            events.onerror = function () { document.body.setAttribute('data-events', 'closed'); };
            events.onmessage = function (e) { try { update(JSON.parse(e.data)); } catch (err) {} };
          }
        })();
        """
}
