/// `/login`: a form that takes the admin's or a device's secret and sets the session cookie.
enum LoginPage {
    static func render(message: String?) -> String {
        let note = message.map { "<p class=\"error\">\(LibraryPage.escape($0))</p>" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Stowage login</title>
            <style>
            body { font-family: system-ui, sans-serif; background: #111; color: #eee; display: grid;
              place-items: center; min-height: 100vh; margin: 0; }
            form { background: #1d1d1d; padding: 2em; border-radius: 8px; display: grid; gap: 1em; width: 20em; }
            input, button { font-size: 1em; padding: .5em; border-radius: 4px; border: 1px solid #444; }
            button { background: #2a6; color: #fff; border: 0; cursor: pointer; }
            .error { color: #f77; margin: 0; }
            </style></head>
            <body><form method="post" action="/login" id="login">
            <h1>Stowage library</h1>
            \(note)
            <label>Secret <input type="password" name="secret" id="secret" autocomplete="current-password"
              autofocus required></label>
            <button type="submit">Log in</button>
            </form></body></html>
            """
    }
}
