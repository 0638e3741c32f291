import Foundation
import StowageOfflineCopy
import StowageProtocol
import Synchronization

/// What a viewer wants to know of a title before playing it, read from its offline copy (the planner wrote the
/// chosen renditions into the local master, so the copy itself is the truth of what can be played): how long,
/// how big, which audio languages and which subtitles. `dash`: the copy is a DASH presentation.
public struct TitleFacts: Codable, Sendable, Equatable {
    public var durationSeconds: Double?
    public var sizeBytes: Int64
    public var audio: [String]
    public var subtitles: [String]
    public var dash: Bool
}

/// The facts of completed titles, read once per version of the entry playlist (a completed copy does not change;
/// a repaired or re-downloaded one gets a new modification time).
final class TitleFactsCache: Sendable {
    private struct Entry: Sendable {
        var modified: Date
        var facts: TitleFacts
    }
    private let entries = Mutex<[String: Entry]>([:])

    /// The facts of the copy in `directory` whose entry playlist is `entry` (a file name); `size` from the status.
    func facts(directory: String, entry: String, size: Int64) -> TitleFacts? {
        let path = directory + "/" + entry
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        else { return nil }
        let key = directory
        if let cached = entries.withLock({ $0[key] }), cached.modified == modified {
            var facts = cached.facts
            facts.sizeBytes = size
            return facts
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let facts = Self.read(text, directory: directory, dash: entry.hasSuffix(".mpd"), size: size)
        entries.withLock { $0[key] = Entry(modified: modified, facts: facts) }
        return facts
    }

    /// Forgets titles no longer listed (deleted ones).
    func keep(only directories: Set<String>) {
        entries.withLock { entries in entries = entries.filter { directories.contains($0.key) } }
    }

    static func read(_ text: String, directory: String, dash: Bool, size: Int64) -> TitleFacts {
        if dash {
            return TitleFacts(
                durationSeconds: mpdDuration(text), sizeBytes: size, audio: mpdLanguages(text, "audio"),
                subtitles: mpdLanguages(text, "text"), dash: true)
        }
        guard let master = LocalMaster(text: text) else {
            return TitleFacts(
                durationSeconds: LocalMaster.duration(ofMedia: text), sizeBytes: size, audio: [], subtitles: [],
                dash: false)
        }
        let video = master.variantURI.flatMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
        return TitleFacts(
            durationSeconds: video.flatMap(LocalMaster.duration(ofMedia:)), sizeBytes: size,
            audio: master.audio.map(\.language), subtitles: master.subtitles.map(\.language), dash: false)
    }

    /// `mediaPresentationDuration="PT1H2M3.5S"` in seconds.
    static func mpdDuration(_ text: String) -> Double? {
        guard let range = text.range(of: "mediaPresentationDuration=\"") else { return nil }
        let value = text[range.upperBound...].prefix { $0 != "\"" }
        guard value.hasPrefix("PT") else { return nil }
        var total = 0.0, number = ""
        for character in value.dropFirst(2) {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let amount = Double(number) else { return nil }
            switch character {
            case "H": total += amount * 3600
            case "M": total += amount * 60
            case "S": total += amount
            default: return nil
            }
            number = ""
        }
        return total
    }

    /// The `lang` of each `AdaptationSet` of a content type (`contentType` or `mimeType` naming it).
    static func mpdLanguages(_ text: String, _ type: String) -> [String] {
        var languages: [String] = []
        for part in text.components(separatedBy: "<AdaptationSet").dropFirst() {
            let tag = part.prefix { $0 != ">" }
            guard
                tag.contains("contentType=\"\(type)\"") || tag.contains("mimeType=\"\(type)/")
                    || (type == "text" && tag.contains("mimeType=\"application/"))
            else { continue }
            guard let range = tag.range(of: " lang=\"") else { continue }
            let lang = String(tag[range.upperBound...].prefix { $0 != "\"" })
            if !lang.isEmpty, !languages.contains(lang) { languages.append(lang) }
        }
        return languages
    }
}
