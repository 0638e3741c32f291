import Foundation

extension LivePlaylist {
    /// Tags that belong to the segment after them: the first one ends the header.
    static let segmentTags: Set<String> = [
        "#EXTINF", "#EXT-X-BYTERANGE", "#EXT-X-DISCONTINUITY", "#EXT-X-KEY", "#EXT-X-MAP",
        "#EXT-X-PROGRAM-DATE-TIME", "#EXT-X-GAP", "#EXT-X-BITRATE", "#EXT-X-DATERANGE", "#EXT-X-CUE-OUT",
        "#EXT-X-CUE-IN", "#EXT-X-CUE-OUT-CONT", "#EXT-X-PART",
    ]

    /// The tag name of a line: up to its first `:`.
    static func name(_ line: String) -> String { String(line.prefix { $0 != ":" }) }

    /// The value of attribute `key` in a tag line (quotes removed), if present.
    static func attribute(_ key: String, in line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        var rest = line[line.index(after: colon)...]
        while !rest.isEmpty {
            let name = rest.prefix { $0 != "=" && $0 != "," }
            rest = rest.dropFirst(name.count)
            var value = Substring("")
            if rest.first == "=" {
                rest = rest.dropFirst()
                if rest.first == "\"" {
                    value = rest.dropFirst().prefix { $0 != "\"" }
                    rest = rest.dropFirst(value.count + 2)
                } else {
                    value = rest.prefix { $0 != "," }
                    rest = rest.dropFirst(value.count)
                }
            }
            if name.trimmingCharacters(in: .whitespaces) == key { return String(value) }
            rest = rest.drop { $0 == "," }
        }
        return nil
    }
}
