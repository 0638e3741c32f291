import Foundation

/// A codec family a device decodes, read from RFC 6381 `CODECS` strings (HLS `CODECS`, DASH `@codecs`). The
/// selection options (`--video-codec`, `--audio-codec`) name these families, not profiles: a device that plays
/// `avc1.640028` plays `avc3.4d401f` as well for offline use, so the family is what a person can choose by. This
/// is the one place that maps codec strings to families, for HLS and DASH alike.
public enum CodecFamily: String, Codable, Sendable, CaseIterable {
    case avc, hevc, av1, aac
    case ac3 = "ac-3"
    case ec3 = "ec-3"

    /// The families `--video-codec` takes.
    public static let video: [CodecFamily] = [.avc, .hevc, .av1]
    /// The families `--audio-codec` takes.
    public static let audio: [CodecFamily] = [.aac, .ac3, .ec3]

    public var isVideo: Bool { Self.video.contains(self) }

    /// The family of one RFC 6381 codec string (`avc1.64001f`, `hvc1.2.4.L123.B0`, `mp4a.40.2`, `ec-3`); nil for
    /// one outside these families (VP9, Opus, WebVTT …).
    public init?(rfc6381 codec: some StringProtocol) {
        let fourCC = codec.trimmingCharacters(in: .whitespaces).lowercased().prefix(4)
        switch fourCC {
        case "avc1", "avc3": self = .avc
        case "hvc1", "hev1": self = .hevc
        case "av01": self = .av1
        case "mp4a": self = .aac
        case "ac-3": self = .ac3
        case "ec-3": self = .ec3
        default: return nil
        }
    }

    /// The families in a comma-separated `CODECS` list, in its order, each once.
    public static func families(in codecs: String?) -> [CodecFamily] {
        var out: [CodecFamily] = []
        for c in (codecs ?? "").split(separator: ",") {
            if let f = CodecFamily(rfc6381: c), !out.contains(f) { out.append(f) }
        }
        return out
    }

    /// The video family of a `CODECS` list: its first video codec; nil without one of these families.
    public static func videoFamily(in codecs: String?) -> CodecFamily? { families(in: codecs).first(where: \.isVideo) }

    /// The audio families of a `CODECS` list.
    public static func audioFamilies(in codecs: String?) -> [CodecFamily] {
        families(in: codecs).filter { !$0.isVideo }
    }

    /// Parses a comma-separated option value (`avc,hevc`) in its order; `option` names it in the error, and only
    /// video (or only audio) families are accepted.
    public static func parseList(_ text: String, video: Bool, option: String) throws(SelectionError) -> [CodecFamily] {
        let allowed = video ? Self.video : Self.audio
        var out: [CodecFamily] = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() })
        where !word.isEmpty {
            guard let family = CodecFamily(rawValue: word), allowed.contains(family) else {
                throw SelectionError(
                    option, "'\(word)' is not one of \(allowed.map(\.rawValue).joined(separator: ", "))")
            }
            if !out.contains(family) { out.append(family) }
        }
        guard !out.isEmpty else { throw SelectionError(option, "names no codec") }
        return out
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let family = CodecFamily(rawValue: text.lowercased()) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "codec '\(text.prefix(40))' is not one of "
                    + Self.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = family
    }
}
