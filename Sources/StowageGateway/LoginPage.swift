/// `/login`: a form that takes the admin's or a device's secret and sets the session cookie (its style is
/// `/app.css`: no inline style under the content security policy). It says where a secret comes from, since the
/// person holding a tablet is rarely the operator who made it.
enum LoginPage {
    static func render(message: String?) -> String {
        let note = message.map { "<p class=\"error\">\(LibraryPage.escape($0))</p>" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Stowage login</title>
            <link rel="stylesheet" href="\(LibraryAssets.stylePath)"></head>
            <body class="login"><form method="post" action="/login" id="login">
            <h1>Stowage library</h1>
            \(note)
            <label>Secret <input type="password" name="secret" id="secret" autocomplete="current-password"
              autofocus required></label>
            <button type="submit">Log in</button>
            <p class="hint" id="login-hint">Your operator gives each device a secret or a pairing link:
            <code>stowctl devices add NAME --pair</code>, or "Add a device" on the console's Devices page.
            Scanning the pairing link's QR code with the device's camera logs it in with no typing; a link works
            once, within 10 minutes.</p>
            </form></body></html>
            """
    }
}
