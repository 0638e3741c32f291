import Hummingbird

/// The Devices page's script and style (`/console-devices.js`, `/console-devices.css`): files of their own, since
/// the content security policy allows no inline script or style. They hold nothing secret, but are served only
/// with a credential like the page itself.
enum DevicesConsoleAssets {
    static let scriptPath = "/console-devices.js"
    static let stylePath = "/console-devices.css"

    /// `GET /console-devices.js` or `/console-devices.css`.
    static func response(_ path: String) -> Response {
        let (type, text) =
            path == scriptPath ? ("text/javascript; charset=utf-8", script) : ("text/css; charset=utf-8", style)
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static let style = """
        body.console { font-family: system-ui, sans-serif; background: #111; color: #eee; margin: 0; }
        .console-nav { display: flex; gap: 1em; padding: .8em 1.5em; background: #1d1d1d; }
        .console-nav a { color: #9cf; text-decoration: none; padding: .2em .4em; border-radius: 4px; }
        .console-nav a:hover, .console-nav a:focus { background: #333; outline: 2px solid #9cf; }
        main { padding: 0 1.5em 2em; max-width: 60em; }
        form#add-device { display: flex; flex-wrap: wrap; gap: .6em; align-items: center; }
        input, button { font-size: 1em; padding: .45em .7em; border-radius: 4px; border: 1px solid #555;
          background: #222; color: #eee; }
        button { cursor: pointer; background: #333; }
        button:focus, input:focus, a:focus { outline: 2px solid #9cf; outline-offset: 2px; }
        #add-button { background: #2a6; border-color: #2a6; color: #fff; }
        .revoke-yes { background: #a33; border-color: #a33; color: #fff; }
        .error { color: #f77; }
        #pairing { background: #1d1d1d; border-radius: 8px; padding: 1em; margin-top: 1em; }
        #pair-qr { display: block; width: min(296px, 80vw); height: auto; image-rendering: pixelated;
          background: #fff; }
        #pair-link { color: #9cf; word-break: break-all; }
        table { border-collapse: collapse; width: 100%; }
        th, td { padding: .45em .6em; border-bottom: 1px solid #333; text-align: left; vertical-align: middle; }
        tr.revoked td { color: #888; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        @media (max-width: 600px) {
          thead { display: none; }
          tr.device { display: grid; grid-template-columns: 1fr 1fr; border-bottom: 1px solid #333; }
          tr.device td { border: 0; }
          td.added::before { content: "added "; color: #aaa; }
          td.seen::before { content: "seen "; color: #aaa; }
        }
        """

    static let script = """
        (function () {
          'use strict';
          var meta = document.querySelector('meta[name="csrf-token"]');
          var csrf = meta ? meta.getAttribute('content') : '';
          function post(path, body) {
            return fetch(path, {
              method: 'POST', credentials: 'same-origin',
              headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
              body: body === undefined ? '' : JSON.stringify(body)
            }).then(function (r) {
              return r.json().then(function (j) {
                if (!r.ok) { throw new Error(j && j.error ? j.error.message : 'HTTP ' + r.status); }
                return j;
              });
            });
          }
          function cell(cls, text) {
            var td = document.createElement('td');
            td.className = cls;
            td.textContent = text;
            return td;
          }
          function button(cls, text, name) {
            var b = document.createElement('button');
            b.type = 'button';
            b.className = cls;
            b.textContent = text;
            if (name) { b.setAttribute('data-name', name); }
            return b;
          }
          // The same controls the server renders for a device (DevicesConsolePage.row).
          function actionsCell(name) {
            var td = cell('actions', '');
            td.appendChild(button('revoke', 'Revoke', name));
            var confirmBox = document.createElement('span');
            confirmBox.className = 'confirm';
            confirmBox.hidden = true;
            confirmBox.appendChild(document.createTextNode('Revoke ' + name + '? It stops playing at once. '));
            confirmBox.appendChild(button('revoke-yes', 'Yes, revoke', name));
            confirmBox.appendChild(document.createTextNode(' '));
            confirmBox.appendChild(button('revoke-no', 'Cancel'));
            td.appendChild(confirmBox);
            return td;
          }
          var form = document.getElementById('add-device');
          var error = document.getElementById('add-error');
          form.addEventListener('submit', function (e) {
            e.preventDefault();
            var input = document.getElementById('device-name');
            var name = input.value.trim();
            error.hidden = true;
            post('/api/devices', { name: name }).then(function (p) {
              document.getElementById('pair-name').textContent = p.name;
              document.getElementById('pair-expiry').textContent = p.expiresText || ('until ' + p.expiresAt);
              var link = document.getElementById('pair-link');
              link.textContent = p.link;
              link.href = p.link;
              document.getElementById('pair-qr').src = p.qrImage;
              document.getElementById('pairing').hidden = false;
              var row = document.createElement('tr');
              row.className = 'device';
              row.setAttribute('data-device', p.name);
              [cell('name', p.name), cell('added', 'just now'), cell('seen', 'never'), cell('state', 'active'),
               actionsCell(p.name)].forEach(function (td) { row.appendChild(td); });
              document.querySelector('#devices tbody').appendChild(row);
              document.getElementById('no-devices').hidden = true;
              input.value = '';
              document.body.setAttribute('data-paired', p.name);
            }).catch(function (err) {
              error.textContent = err.message;
              error.hidden = false;
            });
          });
          document.getElementById('devices').addEventListener('click', function (e) {
            var button = e.target.closest('button');
            if (!button) { return; }
            var actions = button.closest('td');
            var confirmBox = actions.querySelector('.confirm');
            if (button.classList.contains('revoke')) {
              button.hidden = true;
              confirmBox.hidden = false;
              confirmBox.querySelector('.revoke-no').focus();
            } else if (button.classList.contains('revoke-no')) {
              confirmBox.hidden = true;
              actions.querySelector('.revoke').hidden = false;
              actions.querySelector('.revoke').focus();
            } else if (button.classList.contains('revoke-yes')) {
              var name = button.getAttribute('data-name');
              post('/api/devices/' + encodeURIComponent(name) + '/revoke').then(function () {
                var row = button.closest('tr');
                row.classList.add('revoked');
                row.querySelector('.state').textContent = 'revoked just now';
                actions.textContent = '';
              }).catch(function (err) {
                error.textContent = err.message;
                error.hidden = false;
              });
            }
          });
        })();
        """
}
