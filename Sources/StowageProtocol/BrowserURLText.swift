/// A URL's text as a browser's URL parser reads it (WHATWG URL): tabs and line breaks removed anywhere, leading
/// and trailing spaces and control characters trimmed. `" //host/x"` is the scheme-relative `//host/x` to a
/// player, so every check of whether a URI leaves the box looks at this form.
public enum BrowserURLText {
    public static func normalized(_ text: some StringProtocol) -> String {
        let kept = text.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        let blank: (Unicode.Scalar) -> Bool = { $0.value <= 0x20 }
        let trimmed = kept.drop(while: blank).reversed().drop(while: blank).reversed()
        return String(String.UnicodeScalarView(trimmed))
    }
}
