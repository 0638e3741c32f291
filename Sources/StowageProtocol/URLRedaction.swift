/// URLs whose query may carry identity, authorisation or session tokens are never shown whole.
public enum URLRedaction {
    /// The URL without its query string (`…?…` marks that one was there).
    public static func redacted(_ url: String) -> String {
        // A `data:` key URI is the key itself: only its media type is shown.
        if DataURI.isDataURI(url) { return DataURI.redacted(url) }
        guard let q = url.firstIndex(of: "?") else { return url }
        return String(url[..<q]) + "?…"
    }
}
