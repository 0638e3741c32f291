import Foundation
import StowageProtocol

/// A catalogue: the titles an operator wants a box to hold (`stowage-scheduler --catalog`, `stowctl catalog
/// apply`). The box converges on it by itself; `version` must grow with every change, so an old copy replayed
/// by a cache or an attacker is refused.
public struct Catalog: Codable, Sendable, Equatable {
    /// Grows with every published change.
    public var version: Int
    /// The titles, each by its `id` (unique in the catalogue).
    public var titles: [CatalogEntry]

    public init(version: Int, titles: [CatalogEntry]) {
        self.version = version
        self.titles = titles
    }

    /// Decodes a catalogue's bytes and checks what JSON alone cannot (ids unique and usable by submit's rule,
    /// ``TitleLabels``; http(s) URLs).
    public static func decode(_ bytes: Data) throws(CatalogRefusal) -> Catalog {
        let catalog: Catalog
        do { catalog = try JSONDecoder().decode(Catalog.self, from: bytes) } catch {
            throw CatalogRefusal(.malformed, "the catalogue is not valid catalogue JSON: \(Self.describe(error))")
        }
        guard catalog.titles.count <= CatalogLimits.maxEntries else {
            throw CatalogRefusal(
                .tooLarge,
                "the catalogue lists \(catalog.titles.count) titles; at most \(CatalogLimits.maxEntries) are accepted")
        }
        var seen = Set<String>()
        for entry in catalog.titles {
            if let why = TitleLabels.idProblem(entry.id) {
                throw CatalogRefusal(.malformed, "title id '\(entry.id.prefix(80))': an id \(why)")
            }
            guard seen.insert(entry.id).inserted else {
                throw CatalogRefusal(.malformed, "title id '\(entry.id)' is listed twice")
            }
            guard let url = URL(string: entry.url), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else {
                throw CatalogRefusal(
                    .malformed, "title '\(entry.id)': '\(entry.url.prefix(200))' is not an http(s) URL")
            }
            if let window = entry.window {
                do { _ = try FillSchedule(parsing: window) } catch {
                    throw CatalogRefusal(.malformed, "title '\(entry.id)': window \(error)")
                }
            }
            if let selection = entry.selection {
                do throws(SelectionError) { try selection.checkCodecKinds() } catch {
                    throw CatalogRefusal(.malformed, "title '\(entry.id)': selection \(error)")
                }
                do throws(NumberRangeError) { try selection.checkNumbers() } catch {
                    throw CatalogRefusal(.malformed, "title '\(entry.id)': selection \(error)")
                }
            }
            if let range = entry.range {
                do throws(ClipRangeError) { _ = try ClipRange(parsing: range) } catch {
                    throw CatalogRefusal(.malformed, "title '\(entry.id)': range \(error)")
                }
            }
            if entry.file != nil, let refusal = SingleFileClearance(terms: entry.license, operatorKeys: false).refusal {
                throw CatalogRefusal(.malformed, "title '\(entry.id)': file: \(refusal.message)")
            }
            for source in entry.sources ?? [] {
                if let problem = source.problem(entryID: entry.id) {
                    throw CatalogRefusal(.malformed, "title '\(entry.id)': source: \(problem)")
                }
            }
        }
        return catalog
    }

    private static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "missing '\(key.stringValue)'" + Self.path(context)
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return context.debugDescription + Self.path(context)
        case .dataCorrupted(let context)?:
            return context.debugDescription + Self.path(context)
        default:
            return "\(error)"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty
            ? ""
            : " at "
                + context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
                .joined(separator: ".")
    }
}

/// One title of a catalogue: what `stowctl submit` would be given for it.
public struct CatalogEntry: Codable, Sendable, Equatable {
    /// The title's id on the box (as `submit --id`): the gateway serves it as `/titles/<id>/`.
    public var id: String
    /// The HLS or DASH source.
    public var url: String
    public var name: String?
    /// A poster to fetch with the title.
    public var poster: String?
    /// The rendition selection (`--bitrate`, `--max-height`, `--audio`, `--subtitles`, and `videoCodec`, `videoRange`,
    /// `audioCodec`, `channels`, `audioOnly` as the options of those names); a change downloads a new copy.
    public var selection: Selection?
    /// The license asked for (`--purchase`, `--rental` …); nil: the license server's default.
    public var license: RequestedTerms?
    /// The license server (`--license-url`).
    public var licenseURL: String?
    /// A number as `--priority`, or "urgent".
    public var priority: CatalogPriority?
    /// When the title may be fetched (`HH:MM-HH:MM`, several comma-separated): its fill windows, as
    /// `submit --window` (an `"urgent"` title ignores them, as `submit --now`).
    public var window: String?
    /// ISO 8601: keep the title at least until then.
    public var keepUntil: String?
    /// Peer boxes to fill from, the first is used: each file it holds verified comes from it (checked against its
    /// hash), the rest from `url`. A change of sources is no new copy.
    public var sources: [CatalogSource]?
    /// The `--quota` never evicts the title while the catalogue lists it so.
    public var pinned: Bool?
    /// `"mp4"` or `"mkv"`, as `submit --file`: the box also writes the title as one file when it completes (a
    /// clear title without license limits only).
    public var file: SingleFileFormat?
    /// `START-END` as `submit --range` takes it (`"00:10:00-00:25:00"`, `"600-1500"`): only that part of a VOD
    /// title is kept (a clip); a change downloads a new copy.
    public var range: String?

    /// `range` parsed (nil: none; a catalogue whose range does not parse is refused when it is read).
    public var clipRange: ClipRange? { range.flatMap { try? ClipRange(parsing: $0) } }

    public init(id: String, url: String, name: String? = nil, selection: Selection? = nil) {
        self.id = id
        self.url = url
        self.name = name
        self.selection = selection
    }

    enum CodingKeys: String, CodingKey {
        case id, url, name, poster, selection, license
        case licenseURL = "licenseUrl"
        case priority, window, keepUntil, sources, pinned, file, range
    }

    /// Whether a copy downloaded for `other` is a copy of this entry (same source, same renditions, same clip).
    public func sameCopy(url: String, selection: Selection, range: ClipRange?) -> Bool {
        self.url == url && (self.selection ?? Selection()) == selection && clipRange == range
    }
}
