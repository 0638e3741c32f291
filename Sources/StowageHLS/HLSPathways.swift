import Foundation
import StowageProtocol

/// The copies of one title a master playlist offers from different places: content steering's pathways
/// (`PATHWAY-ID`, HLS 2nd edition §4.4.6.6) or, without them, redundant variants (the same `EXT-X-STREAM-INF`
/// attributes listed again with another URI, RFC 8216 §6.2.3). The title is planned on the first pathway; the
/// others give each file its alternates, so a host that fails sends the fetch elsewhere before the title waits.
public struct HLSPathways: Sendable {
    /// One place the streams come from.
    public struct Pathway: Sendable, Equatable {
        /// `PATHWAY-ID`; for a redundant copy without one, its host (or `#n` when hosts do not tell them apart).
        public var name: String
        public var variants: [MasterPlaylist.Variant]
    }

    /// In the order they are tried: the steering server's `PATHWAY-PRIORITY`, else the tag's `PATHWAY-ID`
    /// first, else the master's order.
    public let pathways: [Pathway]

    /// Attributes that differ between copies of one stream: where it is, and the names of its groups.
    static let placeAttributes: Set<String> = ["PATHWAY-ID", "AUDIO", "SUBTITLES", "CLOSED-CAPTIONS"]

    /// At most this many pathways are kept (each one's playlists are fetched when a title is planned).
    public static let maxPathways = 8

    public init(_ master: MasterPlaylist, priority: [String]? = nil) {
        let grouped =
            master.variants.contains { $0.attributes["PATHWAY-ID"] != nil }
            ? Self.bySteering(master.variants) : Self.byRedundancy(master.variants, base: master.url)
        let first = priority ?? master.steering?.pathwayID.map { [$0] } ?? []
        var ordered = first.compactMap { name in grouped.first { $0.name == name } }
        ordered += grouped.filter { p in !ordered.contains { $0.name == p.name } }
        pathways = Array(ordered.prefix(Self.maxPathways))
    }

    /// Whether there is more than one place to fetch from.
    public var hasAlternatives: Bool { pathways.count > 1 }

    /// Variants grouped by `PATHWAY-ID` ("." when absent), in order of first appearance.
    static func bySteering(_ variants: [MasterPlaylist.Variant]) -> [Pathway] {
        var result: [Pathway] = []
        for v in variants {
            if let i = result.firstIndex(where: { $0.name == v.pathwayID }) {
                result[i].variants.append(v)
            } else {
                result.append(Pathway(name: v.pathwayID, variants: [v]))
            }
        }
        return result
    }

    /// The n-th listing of the same stream belongs to the n-th pathway; named by host when that tells them apart.
    static func byRedundancy(_ variants: [MasterPlaylist.Variant], base: String) -> [Pathway] {
        var seen: [[AttributeList.Attribute]: Int] = [:]
        var groups: [[MasterPlaylist.Variant]] = []
        for v in variants {
            let n = seen[signature(v), default: 0]
            seen[signature(v)] = n + 1
            if n == groups.count { groups.append([]) }
            groups[n].append(v)
        }
        let hosts = groups.map { group in
            Set(group.map { authority((try? URIResolver.resolve($0.uri, against: base)) ?? "") })
        }
        let distinct = hosts.allSatisfy { $0.count == 1 } && Set(hosts.map { $0.first ?? "" }).count == hosts.count
        return groups.enumerated().map { n, group in
            Pathway(name: distinct ? (hosts[n].first ?? "#\(n + 1)") : "#\(n + 1)", variants: group)
        }
    }

    /// `host[:port]` of `url` (lowercase), what names a pathway that has no name of its own.
    public static func authority(_ url: String) -> String {
        PlannedPathway.origin(of: url).map(PlannedPathway.host(ofOrigin:)) ?? ""
    }

    /// What makes two listings the same stream: every attribute but where it is and its groups' names.
    static func signature(_ v: MasterPlaylist.Variant) -> [AttributeList.Attribute] {
        v.attributes.attributes.filter { !placeAttributes.contains($0.name) }
    }

    /// The copy of `variant` in `pathway`: the same `STABLE-VARIANT-ID` when both have one, else the same
    /// attributes.
    public func equivalent(of variant: MasterPlaylist.Variant, in pathway: Pathway) -> MasterPlaylist.Variant? {
        if let id = variant.attributes["STABLE-VARIANT-ID"],
            let same = pathway.variants.first(where: { $0.attributes["STABLE-VARIANT-ID"] == id })
        {
            return same
        }
        let wanted = Self.signature(variant)
        return pathway.variants.first { Self.signature($0) == wanted }
    }

    /// The copy of `rendition` (of `type`) in the group `alternate` names: the same `STABLE-RENDITION-ID`, else the
    /// same NAME and LANGUAGE, else the same LANGUAGE. Nil when there is none, or it is the same playlist.
    public static func equivalent(
        of rendition: MasterPlaylist.Rendition, for alternate: MasterPlaylist.Variant, in master: MasterPlaylist
    ) -> MasterPlaylist.Rendition? {
        let group = rendition.type == "AUDIO" ? alternate.audioGroup : alternate.subtitlesGroup
        let members = master.renditions.filter { $0.type == rendition.type && $0.groupID == group && $0.uri != nil }
        let match =
            rendition.attributes["STABLE-RENDITION-ID"].flatMap { id in
                members.first { $0.attributes["STABLE-RENDITION-ID"] == id }
            }
            ?? members.first { $0.name == rendition.name && $0.language == rendition.language }
            ?? members.first { $0.language != nil && $0.language == rendition.language }
        return match?.uri == rendition.uri ? nil : match
    }
}
