import Foundation
import StowageHLS

/// An offline copy's HLS master playlist (the one the planner wrote: one variant, its chosen audio and subtitle
/// renditions each with a local playlist), read for what the library and the play page need: the languages, the
/// playlist of each, and the master narrowed to one audio language for a player that offers no audio choice.
public struct LocalMaster: Sendable {
    public struct Rendition: Sendable, Equatable {
        public var language: String
        public var name: String
        /// The rendition's playlist, relative to the master.
        public var uri: String
    }

    public let text: String
    public private(set) var variantURI: String?
    public private(set) var audio: [Rendition] = []
    public private(set) var subtitles: [Rendition] = []

    /// The master playlist (`master.m3u8`) of the offline copy in `directory`, when it is one.
    public init?(titleFolder directory: String) {
        guard let text = try? String(contentsOfFile: directory + "/master.m3u8", encoding: .utf8) else { return nil }
        self.init(text: text)
    }

    /// Parses `text`, or nil when it is no master playlist (a media playlist offline is its own entry).
    public init?(text: String) {
        guard let master = try? MasterPlaylist(text: text, url: "offline/master.m3u8"), !master.variants.isEmpty
        else { return nil }
        self.text = text
        variantURI = master.variants.first?.uri
        for rendition in master.renditions {
            guard let uri = rendition.uri else { continue }
            let entry = Rendition(
                language: rendition.language ?? rendition.name, name: rendition.name, uri: uri)
            if rendition.type == "AUDIO" { audio.append(entry) }
            if rendition.type == "SUBTITLES" { subtitles.append(entry) }
        }
    }

    /// The master with only the audio rendition in `language` (made the default) and no subtitle rendition (the
    /// play page gives those as `<track>`s); nil when no audio rendition has that language.
    public func narrowed(toAudio language: String) -> String? {
        guard audio.contains(where: { $0.language == language }) else { return nil }
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#EXT-X-MEDIA:"), var attributes = try? AttributeList(parsing: line.dropFirst(13)) {
                let type = attributes["TYPE"], uri = attributes["URI"]
                if type == "SUBTITLES" { continue }
                if type == "AUDIO", uri != nil {
                    guard (attributes["LANGUAGE"] ?? attributes["NAME"]) == language else { continue }
                    attributes.set("DEFAULT", "YES", quoted: false)
                    attributes.set("AUTOSELECT", "YES", quoted: false)
                    out.append("#EXT-X-MEDIA:" + attributes.text)
                    continue
                }
            } else if line.hasPrefix("#EXT-X-STREAM-INF:"),
                var attributes = try? AttributeList(parsing: line.dropFirst(18))
            {
                attributes.remove("SUBTITLES")
                out.append("#EXT-X-STREAM-INF:" + attributes.text)
                continue
            }
            out.append(String(line))
        }
        return out.joined(separator: "\n")
    }

    /// The seconds of a media playlist's segments (nil when it cannot be read as one).
    public static func duration(ofMedia text: String) -> Double? {
        guard let media = try? MediaPlaylist(text: text, url: "offline/index.m3u8") else { return nil }
        return media.segments.reduce(0) { $0 + $1.duration }
    }
}
