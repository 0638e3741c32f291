/// URLs whose query may carry identity, authorisation or session tokens are never shown whole.
public enum URLRedaction {
    /// The URL without its query string (`…?…` marks that one was there).
    public static func redacted(_ url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        return String(url[..<q]) + "?…"
    }
}
