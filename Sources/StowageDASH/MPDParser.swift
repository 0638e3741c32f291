import Foundation
import StowageProtocol

/// Builds an `MPD` from its XML: Periods, AdaptationSets and Representations with inheritance applied
/// (attributes, BaseURLs, SegmentTemplate / SegmentBase / SegmentList, ContentProtection).
enum MPDParser {
    /// MPDs larger than this are refused.
    static let maxBytes = 32 << 20
    static let maxPeriods = 1_000

    /// Segment information found at one level (Period, AdaptationSet or Representation).
    private struct Level {
        var template: SegmentTemplate?
        var base: SegmentBase?
        var list: SegmentList?

        init(_ node: XMLNode) throws(DASHError) {
            let found = ["SegmentTemplate", "SegmentBase", "SegmentList"].filter { node.child($0) != nil }
            guard found.count <= 1 else {
                throw DASHError(
                    .malformed, element: node.name,
                    "\(node.name) has both \(found.joined(separator: " and ")): at most one is allowed")
            }
            template = try node.child("SegmentTemplate").map { n throws(DASHError) in try SegmentTemplate.parse(n) }
            base = try node.child("SegmentBase").map { n throws(DASHError) in try SegmentBase.parse(n) }
            list = try node.child("SegmentList").map { n throws(DASHError) in try SegmentList.parse(n) }
        }
    }

    /// Attributes an AdaptationSet passes down to its Representations.
    private struct Common {
        var mimeType: String?
        var codecs: String?
        var width: Int?
        var height: Int?
        var bandwidth: Int?
        var frameRate: String?
        var transferCharacteristics: Int?
        var audioChannels: Int?

        init(_ node: XMLNode, parent: Common? = nil) throws(DASHError) {
            mimeType = node.attribute("mimeType") ?? parent?.mimeType
            codecs = node.attribute("codecs") ?? parent?.codecs
            width = try node.int("width") ?? parent?.width
            height = try node.int("height") ?? parent?.height
            bandwidth = try node.int("bandwidth", in: OutsideNumbers.bitsPerSecond("bandwidth")) ?? parent?.bandwidth
            frameRate = node.attribute("frameRate") ?? parent?.frameRate
            transferCharacteristics = DecodeDescriptors.transferCharacteristics(node) ?? parent?.transferCharacteristics
            audioChannels = DecodeDescriptors.audioChannels(node) ?? parent?.audioChannels
        }
    }

    static func parse(_ data: Data, url: String, allowDynamic: Bool = false) throws(DASHError) -> MPD {
        guard data.count <= maxBytes else {
            throw DASHError(.tooLarge, "the MPD is \(data.count) bytes; at most \(maxBytes) are accepted")
        }
        let root = try XMLNode.parse(data)
        guard root.name == "MPD" else {
            throw DASHError(.notMPD, element: root.name, "the document's root is <\(root.name)>, not <MPD>")
        }
        let type: MPD.PresentationType
        switch root.attribute("type") ?? "static" {
        case "static": type = .static
        case "dynamic" where allowDynamic: type = .dynamic
        case "dynamic":
            throw DASHError(
                .dynamic, element: "MPD", attribute: "type",
                "MPD@type='dynamic' is a live presentation: submit it with --record to record it")
        case let other: throw DASHError.invalid("MPD", "type", other, "'static' or 'dynamic'")
        }
        let presentationDuration = try root.duration("mediaPresentationDuration")
        let documentURL = try BaseURLResolver.resolve(url, against: url, element: "MPD")
        let baseURLs = try BaseURLResolver.alternatives(root, parents: [documentURL])
        let periodNodes = root.children("Period")
        guard !periodNodes.isEmpty else { throw DASHError(.malformed, element: "MPD", "the MPD has no Period") }
        guard periodNodes.count <= maxPeriods else {
            throw DASHError(.tooLarge, element: "Period", "the MPD has more than \(maxPeriods) Periods")
        }
        var periods: [Period] = []
        var nextStart: Double? = 0
        for (index, node) in periodNodes.enumerated() {
            if node.attribute("href") != nil {
                throw DASHError(
                    .unsupported, element: "Period", attribute: "xlink:href",
                    "Period@xlink:href (remote Periods) is not supported")
            }
            guard let start = try node.duration("start") ?? nextStart else {
                throw DASHError.missing("Period", "start", "Period \(index) follows a Period of unknown duration")
            }
            let period = try parsePeriod(node, start: start, parents: baseURLs)
            nextStart = period.duration.map { start + $0 }
            periods.append(period)
        }
        // Durations not given: up to the next Period, or up to the end of the presentation. A Period never runs
        // past either: its segments are cut there, so a longer timeline asks for nothing the origin lacks.
        for index in periods.indices {
            let next = index + 1 < periods.count ? periods[index + 1].start : presentationDuration
            let start = periods[index].start
            guard let end = next, end >= start else { continue }
            periods[index].duration = min(periods[index].duration ?? .infinity, end - start)
        }
        var mpd = MPD(
            url: documentURL, type: type, mediaPresentationDuration: presentationDuration,
            minBufferTime: try root.duration("minBufferTime"), profiles: root.attribute("profiles"),
            baseURLs: baseURLs, periods: periods, live: type == .dynamic ? try LiveTiming.parse(root) : nil)
        mpd.serviceLocations = BaseURLResolver.serviceLocations(root, parents: [documentURL])
        for node in periodNodes.prefix(1) {
            for place in BaseURLResolver.serviceLocations(node, parents: baseURLs)
            where !mpd.serviceLocations.contains(where: { $0.url == place.url }) {
                mpd.serviceLocations.append(place)
            }
        }
        return mpd
    }

    private static func parsePeriod(_ node: XMLNode, start: Double, parents: [String]) throws(DASHError) -> Period {
        let baseURLs = try BaseURLResolver.alternatives(node, parents: parents)
        let level = try Level(node)
        var sets: [AdaptationSet] = []
        for set in node.children("AdaptationSet") {
            sets.append(try parseAdaptationSet(set, period: level, parents: baseURLs))
        }
        return Period(
            id: node.attribute("id"), start: start, duration: try node.duration("duration"), baseURLs: baseURLs,
            adaptationSets: sets)
    }

    private static func parseAdaptationSet(
        _ node: XMLNode, period: Level, parents: [String]
    ) throws(DASHError) -> AdaptationSet {
        let baseURLs = try BaseURLResolver.alternatives(node, parents: parents)
        let level = try Level(node)
        let common = try Common(node)
        var protections: [ContentProtection] = []
        for cp in node.children("ContentProtection") { protections.append(try ContentProtection.parse(cp)) }
        var representations: [Representation] = []
        for rep in node.children("Representation") {
            representations.append(
                try parseRepresentation(
                    rep, levels: [period, level], common: common, protections: protections, parents: baseURLs))
        }
        let component = node.child("ContentComponent")
        let type = AdaptationSet.inferType(
            contentType: node.attribute("contentType") ?? component?.attribute("contentType"),
            mimeTypes: ([common.mimeType] + representations.map(\.mimeType)).compactMap { $0 },
            codecs: ([common.codecs] + representations.map(\.codecs)).compactMap { $0 })
        return AdaptationSet(
            id: node.attribute("id"), contentType: type, mimeType: common.mimeType,
            lang: node.attribute("lang") ?? component?.attribute("lang"), label: node.child("Label")?.text,
            codecs: common.codecs, roles: descriptors(node, "Role"),
            essentialProperties: descriptors(node, "EssentialProperty"),
            supplementalProperties: descriptors(node, "SupplementalProperty"), contentProtections: protections,
            representations: representations)
    }

    private static func parseRepresentation(
        _ node: XMLNode, levels: [Level], common: Common, protections: [ContentProtection], parents: [String]
    ) throws(DASHError) -> Representation {
        guard let id = node.attribute("id"), !id.isEmpty else { throw DASHError.missing("Representation", "id") }
        let own = try Common(node, parent: common)
        guard let bandwidth = own.bandwidth else {
            throw DASHError.missing("Representation", "bandwidth", "Representation '\(id.prefix(40))'")
        }
        var mine = protections
        for cp in node.children("ContentProtection") { mine.append(try ContentProtection.parse(cp)) }
        var representation = Representation(
            id: id, bandwidth: bandwidth, width: own.width, height: own.height, codecs: own.codecs,
            mimeType: own.mimeType, frameRate: own.frameRate,
            baseURLs: try BaseURLResolver.alternatives(node, parents: parents),
            segmentInformation: segmentInformation(levels + [try Level(node)]), contentProtections: mine)
        representation.videoRange = VideoRange(transferCharacteristics: own.transferCharacteristics)
        representation.audioChannels = own.audioChannels
        return representation
    }

    /// The most specific kind of segment information, completed by the same kind at the levels above.
    private static func segmentInformation(_ levels: [Level]) -> Representation.SegmentInformation {
        guard let lowest = levels.last(where: { $0.template != nil || $0.base != nil || $0.list != nil }) else {
            return .none
        }
        if lowest.template != nil {
            let merged = levels.compactMap(\.template).reduce(nil as SegmentTemplate?) { parent, child in
                child.inheriting(parent)
            }
            return merged.map { .template($0) } ?? .none
        }
        if lowest.list != nil {
            let merged = levels.compactMap(\.list).reduce(nil as SegmentList?) { parent, child in
                child.inheriting(parent)
            }
            return merged.map { .list($0) } ?? .none
        }
        let merged = levels.compactMap(\.base).reduce(nil as SegmentBase?) { parent, child in child.inheriting(parent) }
        return merged.map { .base($0) } ?? .none
    }

    private static func descriptors(_ node: XMLNode, _ name: String) -> [AdaptationSet.Descriptor] {
        node.children(name).map {
            AdaptationSet.Descriptor(schemeIdUri: $0.attribute("schemeIdUri") ?? "", value: $0.attribute("value"))
        }
    }
}
