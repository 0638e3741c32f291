import Hummingbird

/// The console's script and style (`/console.js`, `/console.css`), served as files: the content security policy
/// allows no inline script or style. Nothing in them is secret; the data comes from the admin-only routes.
///
/// The script follows `/events` (the body's `data-events`: `connecting`, `open`, `closed`): a title's progress,
/// bytes and rate move in place; a change of state (or a title not shown yet) reloads the rows from
/// `/console/titles` (rendered by ``ConsolePage``, so the actions offered stay the server's) and the box's part.
enum ConsoleAssets {
    static let scriptPath = "/console.js"
    static let stylePath = "/console.css"

    static func response(_ path: String) -> Response {
        let (type, text) =
            path == scriptPath ? ("text/javascript; charset=utf-8", script) : ("text/css; charset=utf-8", style)
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static let style = """
        body.console { font-family: system-ui, sans-serif; background: #111; color: #eee; margin: 0 1em 2em; }
        .console-nav { display: flex; gap: 1em; padding: .6em 0; border-bottom: 1px solid #333; }
        .console-nav a { color: #8cf; }
        header { display: flex; justify-content: space-between; align-items: center; flex-wrap: wrap; }
        h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.4em; } h3 { font-size: 1em; }
        .inline { display: inline; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { padding: .4em .5em; border-bottom: 1px solid #333; text-align: left; vertical-align: top; }
        code { font-size: .85em; color: #cdf; overflow-wrap: anywhere; }
        .source .url { word-break: break-all; font-size: .9em; }
        .when, .reason { color: #aaa; font-size: .85em; }
        .reason { max-width: 28em; }
        .pin { color: #fc6; font-size: .8em; }
        progress.bar { height: 6px; width: 7em; accent-color: #2a6; vertical-align: middle; }
        .bytes, .rate { font-size: .85em; color: #bbb; }
        button { background: #333; color: #eee; border: 1px solid #555; border-radius: 4px; padding: .35em .7em;
          cursor: pointer; margin: .1em .2em .1em 0; font-size: .95em; }
        button:focus, input:focus, a:focus { outline: 2px solid #8cf; outline-offset: 1px; }
        #add-title { display: grid; gap: .6em; max-width: 46em; }
        #add-title label { display: grid; gap: .2em; }
        #add-title fieldset { display: grid; grid-template-columns: repeat(auto-fit, minmax(12em, 1fr)); gap: .6em;
          border: 1px solid #333; border-radius: 6px; }
        input { background: #1d1d1d; color: #eee; border: 1px solid #444; border-radius: 4px; padding: .45em;
          font-size: 1em; }
        #add-title > button, #submit-title { justify-self: start; background: #2a6; border: 0; color: #fff; }
        #add-status { margin: 0; min-height: 1.2em; }
        #add-status.error, .problem { color: #f77; }
        #box-body { display: grid; grid-template-columns: repeat(auto-fit, minmax(18em, 1fr)); gap: 0 1.5em; }
        dl { display: grid; grid-template-columns: auto 1fr; gap: .2em .8em; margin: 0; }
        dt { color: #aaa; } dd { margin: 0; }
        body[data-events="open"] h1::after { content: " ● live"; color: #2a6; font-size: .6em; }
        @media (max-width: 700px) {
          #titles thead { display: none; }
          #titles tr { display: block; border-bottom: 1px solid #444; padding: .4em 0; }
          #titles td { display: block; border: 0; padding: .15em 0; }
        }
        """

    static let script = """
        (function () {
          if (!document.body.classList.contains('console')) { return; }
          var meta = document.querySelector('meta[name="csrf-token"]');
          var csrf = meta ? meta.getAttribute('content') : '';
          var tbody = document.querySelector('#titles tbody');
          var boxPart = document.getElementById('box-body');
          var say = document.getElementById('add-status');
          function post(path, data) {
            var init = { method: 'POST', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf } };
            if (data !== undefined) {
              init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(data);
            }
            return fetch(path, init).then(function (r) {
              return r.json().then(function (j) {
                if (!r.ok || j.error) { throw new Error(j.error ? j.error.message : 'HTTP ' + r.status); }
                return j;
              });
            });
          }
          function size(n) {
            var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], u = 0;
            while (n >= 1024 && u < units.length - 1) { n /= 1024; u += 1; }
            return u === 0 ? n + ' B' : (Math.round(n * 10) / 10) + ' ' + units[u];
          }
          function wire(row) {
            row.querySelectorAll('button.action').forEach(function (b) {
              b.onclick = function () {
                var action = b.getAttribute('data-action');
                if (action === 'delete' && !confirm('Delete this title and its files?')) { return; }
                post('/api/titles/' + row.getAttribute('data-token') + '/' + action)
                  .then(refresh, function (e) { alert(e.message); });
              };
            });
          }
          var pending = null;
          function refresh() {
            if (pending) { return; }
            pending = setTimeout(function () {
              pending = null;
              fetch('/console/titles', { credentials: 'same-origin' }).then(function (r) { return r.text(); })
                .then(function (html) {
                  tbody.innerHTML = html;
                  tbody.querySelectorAll('tr.title').forEach(wire);
                  document.getElementById('empty').hidden = tbody.children.length > 0;
                });
              fetch('/console/box', { credentials: 'same-origin' }).then(function (r) { return r.text(); })
                .then(function (html) { if (boxPart) { boxPart.innerHTML = html; } });
            }, 250);
          }
          tbody.querySelectorAll('tr.title').forEach(wire);
          var last = {};
          function update(t) {
            var row = tbody.querySelector('tr.title[data-token="' + t.token + '"]');
            if (!row || row.getAttribute('data-state') !== t.state) { refresh(); return; }
            var p = Math.floor(Math.min(Math.max(t.progress, 0), 1) * 100);
            row.querySelector('.progress').textContent = p + '%';
            row.querySelector('progress.bar').value = p;
            row.querySelector('.bytes').textContent = size(t.bytesDownloaded) +
              (t.bytesExpected ? ' of ' + size(t.bytesExpected) : '');
            var now = Date.now(), before = last[t.token];
            if (before && now > before.at && t.bytesDownloaded >= before.bytes) {
              var rate = (t.bytesDownloaded - before.bytes) * 1000 / (now - before.at);
              before.rate = before.rate === undefined ? rate : before.rate * 0.7 + rate * 0.3;
              row.querySelector('.rate').textContent = size(Math.round(before.rate)) + '/s';
              last[t.token] = { bytes: t.bytesDownloaded, at: now, rate: before.rate };
            } else {
              last[t.token] = { bytes: t.bytesDownloaded, at: now };
            }
          }
          if (window.EventSource) {
            document.body.setAttribute('data-events', 'connecting');
            var events = new EventSource('/events');
            events.onopen = function () { document.body.setAttribute('data-events', 'open'); };
            events.onerror = function () { document.body.setAttribute('data-events', 'closed'); };
            events.onmessage = function (e) { try { update(JSON.parse(e.data)); } catch (err) {} };
          }

          var form = document.getElementById('add-title');
          var preview = document.getElementById('preview');
          function field(id) { return document.getElementById(id).value.trim(); }
          function number(id) { var v = field(id); return v === '' ? null : Number(v); }
          function asked() {
            return { url: field('add-url'), name: field('add-name') || null, bitrate: number('add-bitrate'),
                     maxHeight: number('add-max-height'), audio: field('add-audio') || null,
                     subtitles: field('add-subtitles') || null };
          }
          function cell(tr, text) { var td = document.createElement('td'); td.textContent = text; tr.appendChild(td); }
          function show(j) {
            var rows = document.querySelector('#variants tbody'); rows.innerHTML = '';
            j.variants.variants.forEach(function (v) {
              var tr = document.createElement('tr');
              cell(tr, v.index); cell(tr, Math.round(v.bandwidth / 1000) + ' kb/s');
              cell(tr, v.resolution || (v.hasVideo ? '?' : 'audio')); cell(tr, v.codecs || '-');
              cell(tr, v.audioGroup || '-'); cell(tr, v.subtitlesGroup || '-');
              rows.appendChild(tr);
            });
            if (!j.variants.isMaster) {
              var tr = document.createElement('tr'); cell(tr, 'a media playlist: one rendition'); rows.appendChild(tr);
            }
            var list = document.getElementById('renditions'); list.innerHTML = '';
            j.variants.renditions.forEach(function (r) {
              var li = document.createElement('li');
              li.textContent = r.type.toLowerCase() + ' ' + (r.language || '-') + ' "' + r.name + '"' +
                (r.isDefault ? ' (default)' : '');
              list.appendChild(li);
            });
            var e = j.estimate, s = Math.round(e.durationSeconds);
            // A live stream has no length: its estimate is per hour of recording (it is added with --record).
            document.getElementById('estimate').textContent = (e.perHourOfRecording
              ? 'Live stream, per hour of recording (stowctl submit --record): '
              : 'Estimate for this selection: ') +
              (e.bytes === null ? 'unknown' : size(e.bytes)) + (e.exact ? ' (exact)' : ' (bandwidth × duration)') +
              ', ' + e.files + ' files, ' + Math.floor(s / 60) + ':' + ('0' + s % 60).slice(-2) +
              (e.protection ? ', protected (' + (e.protection.scheme || 'encrypted') + ')' : '');
            preview.hidden = false;
          }
          function fail(e) { say.className = 'error'; say.textContent = e.message; }
          form.onsubmit = function (ev) {
            ev.preventDefault();
            preview.hidden = true; say.className = ''; say.textContent = 'Looking at the playlist…';
            post('/api/console/preview', asked()).then(function (j) { say.textContent = ''; show(j); }, fail);
          };
          form.oninput = function () { preview.hidden = true; };
          document.getElementById('submit-title').onclick = function () {
            say.className = ''; say.textContent = 'Adding…';
            post('/api/titles', asked()).then(function (j) {
              say.textContent = 'Added: title ' + j.token; preview.hidden = true; refresh();
            }, fail);
          };
        })();
        """
}
