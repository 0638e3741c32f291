import Foundation

/// SubRip (`.srt`) of cues, for the devices that read only SRT (USB media players, smart TVs). SRT carries text
/// and, by convention, `<b>`, `<i>` and `<u>`: every other WebVTT markup (classes, voices, ruby, languages,
/// inline timestamps) is dropped and only its text kept; character references are decoded, as SRT has none.
public enum SRTText {
    /// The SRT document: cues numbered from 1, `hh:mm:ss,ttt` times, a blank line after each.
    public static func document(_ cues: [SubtitleCue]) -> String {
        var out = ""
        for (index, cue) in cues.enumerated() {
            out += "\(index + 1)\n\(timestamp(cue.start)) --> \(timestamp(cue.end))\n"
            out += plainText(cue.text) + "\n\n"
        }
        return out
    }

    /// WebVTT cue text as SRT text: tags other than b, i and u removed, `<v Name>` kept as its text only,
    /// entities decoded. Lines that end up empty are dropped (a cue that held only markup keeps one space, so
    /// the cue is not lost).
    public static func plainText(_ text: String) -> String {
        var out = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "<", let close = text[index...].firstIndex(of: ">") {
                let tag = text[text.index(after: index)..<close]
                let name = tag.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter })
                if ["b", "i", "u"].contains(name) {
                    out += (tag.hasPrefix("/") ? "</" : "<") + name + ">"
                }
                index = text.index(after: close)
                continue
            }
            if character == "&", let end = text[index...].prefix(12).firstIndex(of: ";"),
                let decoded = Entities.decode(String(text[text.index(after: index)..<end]))
            {
                out += decoded
                index = text.index(after: end)
                continue
            }
            out.append(character)
            index = text.index(after: index)
        }
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
        return lines.isEmpty ? " " : lines.joined(separator: "\n")
    }

    /// `hh:mm:ss,ttt`.
    static func timestamp(_ seconds: Double) -> String {
        WebVTTText.timestamp(seconds).replacingOccurrences(of: ".", with: ",")
    }
}

/// Character references of WebVTT and TTML text: the named ones WebVTT defines, and numeric ones.
enum Entities {
    static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}", "lrm": "\u{200E}",
        "rlm": "\u{200F}",
    ]

    /// The text of reference `name` (without `&` and `;`), or nil when it is none.
    static func decode(_ name: String) -> String? {
        if let text = named[name] { return text }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value =
            digits.hasPrefix("x") || digits.hasPrefix("X")
            ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }

    /// Text made safe as WebVTT cue text: `&`, `<` and `>` escaped.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
