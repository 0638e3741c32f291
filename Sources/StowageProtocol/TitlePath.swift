import Foundation

/// The one rule for mapping a name to a file under a root (a title's folder, the titles folder, an origin's
/// folder): a name never leads out of it.
///
/// Every place that turns a name into a file uses it — the download worker's destinations, the integrity
/// worker's files, the playback servers and the dev origin — so a trick refused in one place is refused in
/// all of them. Names the pipeline wrote itself (``Use/stored``) may start with a dot; names that come with a
/// request (``Use/served``) may not, nor hold a backslash.
public enum TitlePath {
    /// Where a name comes from, which decides how strict the rule is.
    public enum Use: Sendable {
        /// A name the scheduler gave (a planned file's path): plain components.
        case stored
        /// A name from a request: plain components, none hidden (a leading `.`), no backslash.
        case served
    }

    /// The longest name accepted, bytes.
    public static let maxBytes = 1023

    /// Whether `relative` (decoded) names something inside a root: not empty, not absolute, at most
    /// ``maxBytes``, no empty, `.` or `..` component, no control character (NUL included); for a served name
    /// also no component starting with `.` and no backslash. One pass over the bytes: it runs for every file
    /// fetched.
    public static func isSafe(_ relative: String, for use: Use) -> Bool {
        var relative = relative
        return relative.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= maxBytes, bytes[0] != UInt8(ascii: "/") else { return false }
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: "."), backslash = UInt8(ascii: "\\")
            var componentStart = 0
            for i in 0...bytes.count {
                let byte = i < bytes.count ? bytes[i] : slash
                if byte < 0x20 || byte == 0x7f { return false }
                if use == .served && byte == backslash { return false }
                guard byte == slash else { continue }
                let length = i - componentStart
                if length == 0 { return false }
                if bytes[componentStart] == dot {
                    if use == .served || length == 1 || (length == 2 && bytes[componentStart + 1] == dot) {
                        return false
                    }
                }
                componentStart = i + 1
            }
            return true
        }
    }

    /// The file `relative` names under `root` (no access to the disk), or nil when the name is not safe.
    public static func file(_ relative: String, under root: URL, for use: Use) -> URL? {
        guard isSafe(relative, for: use) else { return nil }
        return root.appendingPathComponent(relative, isDirectory: false)
    }

    /// The relative path (decoded, `a/b.ts`) a raw request sub-path names, or nil when it tries anything: an
    /// encoded slash or backslash (`%2F`, `%5C`), an encoded NUL, bad percent-encoding, or a decoded name the
    /// ``Use/served`` rule refuses. The query is ignored and empty parts are dropped; the result may be empty
    /// (the root itself).
    public static func relative(rawPath: String) -> String? {
        var path = Substring(rawPath)
        if let query = path.utf8.firstIndex(of: UInt8(ascii: "?")) { path = path[..<query] }
        // It runs for every request a gateway serves: byte scans, and the decoding only when there is any.
        var decoded = String(path)
        if path.utf8.contains(UInt8(ascii: "%")) {
            guard !hasEncodedSeparator(path.utf8), let plain = decoded.removingPercentEncoding else { return nil }
            decoded = plain
        }
        let relative =
            hasEmptyPart(decoded.utf8)
            ? decoded.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/") : decoded
        guard relative.isEmpty || isSafe(relative, for: .served) else { return nil }
        return relative
    }

    /// Whether `bytes` hold `%2F`, `%5C` or `%00` (any case): a separator or NUL smuggled past the split.
    private static func hasEncodedSeparator(_ bytes: Substring.UTF8View) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in bytes {
            defer { previous = (previous.1, byte) }
            guard previous.0 == UInt8(ascii: "%") else { continue }
            switch (previous.1, byte | 0x20) {
            case (UInt8(ascii: "2"), UInt8(ascii: "f")), (UInt8(ascii: "5"), UInt8(ascii: "c")),
                (UInt8(ascii: "0"), UInt8(ascii: "0")):
                return true
            default: continue
            }
        }
        return false
    }

    /// Whether a path starts or ends with `/` or holds `//`: parts to drop.
    private static func hasEmptyPart(_ bytes: String.UTF8View) -> Bool {
        let slash = UInt8(ascii: "/")
        guard let first = bytes.first, let last = bytes.last else { return false }
        if first == slash || last == slash { return true }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == slash && previous == slash { return true }
            previous = byte
        }
        return false
    }
}
