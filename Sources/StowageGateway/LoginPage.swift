/// `/login`: a form that takes the admin's or a device's secret and sets the session cookie (its style is
/// `/app.css`: no inline style under the content security policy).
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
            </form></body></html>
            """
    }
}
