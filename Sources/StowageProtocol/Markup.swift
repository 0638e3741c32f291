/// Escaping for XML and HTML text and attribute values (the local MPD, the library page).
public enum Markup {
    /// `&`, `<`, `>`, `"` and `'` as character references, valid in XML and HTML alike.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
