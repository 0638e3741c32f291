import Foundation
import StowageProtocol

/// `/console/devices` (admin only): the box's devices with when each was added and last seen and whether it was
/// revoked; "Add a device" (a name → the one-time pairing link and its QR code, with its expiry) and revoke with a
/// confirmation, both through the page's script (`/console-devices.js`, which sends the session's CSRF token).
/// Times are in the box's time zone, in words.
enum DevicesConsolePage {
    /// The navigation every admin page starts with.
    static let nav =
        "<nav class=\"console-nav\"><a href=\"/\">Library</a> <a href=\"/console\">Console</a> "
        + "<a href=\"/console/devices\">Devices</a></nav>"

    static func render(_ devices: [DeviceInfo], csrfToken: String?, now: Date = Date()) -> String {
        let rows = devices.map { row($0, now: now) }.joined(separator: "\n")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="csrf-token" content="\(Markup.escape(csrfToken ?? ""))">
            <title>Devices · Stowage console</title>
            <link rel="stylesheet" href="\(DevicesConsoleAssets.stylePath)">
            <script src="\(DevicesConsoleAssets.scriptPath)" defer></script></head>
            <body class="console devices">
            \(nav)
            <main>
            <h1>Devices</h1>
            <section id="add" aria-labelledby="add-title"><h2 id="add-title">Add a device</h2>
            <form id="add-device">
            <label for="device-name">Name</label>
            <input id="device-name" name="name" required maxlength="64" pattern="[A-Za-z0-9._\\-]+"
              autocomplete="off" placeholder="tablet-3" title="letters, digits, '.', '_' or '-'">
            <button type="submit" id="add-button">Add and pair</button>
            </form>
            <p id="add-error" class="error" role="alert" hidden></p>
            <div id="pairing" hidden aria-live="polite">
            <p>Scan this code with <strong id="pair-name"></strong>'s camera, or open the link on it. It logs that
            one browser in, once, <span id="pair-expiry"></span>.</p>
            <img id="pair-qr" alt="QR code of the pairing link">
            <p><a id="pair-link" href="#"></a></p>
            </div>
            </section>
            <section aria-labelledby="list-title"><h2 id="list-title">Devices of this box</h2>
            <table id="devices"><thead><tr><th>Name</th><th>Added</th><th>Last seen</th><th>State</th>
            <th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            <p id="no-devices"\(devices.isEmpty ? "" : " hidden")>No devices yet: add one above.</p>
            </section>
            </main>
            </body></html>
            """
    }

    static func row(_ d: DeviceInfo, now: Date) -> String {
        let name = Markup.escape(d.name)
        let state =
            d.revokedAt.map { "revoked \(BoxTime.words($0, now: now))" } ?? (d.peer == true ? "peer box" : "active")
        let action =
            d.revokedAt != nil
            ? ""
            : """
            <button type="button" class="revoke" data-name="\(name)">Revoke</button>\
            <span class="confirm" hidden>Revoke \(name)? It stops playing at once. \
            <button type="button" class="revoke-yes" data-name="\(name)">Yes, revoke</button> \
            <button type="button" class="revoke-no">Cancel</button></span>
            """
        return """
            <tr class="device" data-device="\(name)"><td class="name">\(name)</td>\
            <td class="added">\(Markup.escape(d.createdAt.map { BoxTime.words($0, now: now) } ?? "—"))</td>\
            <td class="seen">\(Markup.escape(d.lastSeenAt.map { BoxTime.words($0, now: now) } ?? "never"))</td>\
            <td class="state">\(Markup.escape(state))</td><td class="actions">\(action)</td></tr>
            """
    }
}
