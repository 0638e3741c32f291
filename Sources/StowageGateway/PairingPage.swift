import StowageProtocol

/// What `GET /pair/<code>` shows when the code does not log the browser in: why (used already, expired, not one
/// this box gave, the device revoked, or too many tries from this address) and what to do next. A good code never
/// sees this page: it is answered with the session cookie and a redirect to the library.
enum PairingPage {
    /// The path prefix of pairing links.
    static let prefix = "/pair/"

    /// Whether `path` is a pairing link's (`/pair/<code>`, one segment): served without a credential.
    static func isPairingPath(_ path: String) -> Bool {
        path.hasPrefix(prefix) && path.count > prefix.count && !path.dropFirst(prefix.count).contains("/")
    }

    static func render(message: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Pairing link not accepted</title>
        <link rel="stylesheet" href="\(LibraryAssets.stylePath)"></head>
        <body class="login"><main id="pairing-refused">
        <h1>This pairing link did not log you in</h1>
        <p class="error" id="pairing-reason">\(Markup.escape(message))</p>
        <p>A pairing link works once, within 10 minutes of being made. Ask the operator for a new one
        (<code>stowctl devices add NAME --pair</code>, or "Add a device" on the console's Devices page), or
        <a href="/login">log in with the device's secret</a>.</p>
        </main></body></html>
        """
    }
}
