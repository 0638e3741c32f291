import Foundation
import StowageProtocol

/// Turns the chosen Representations of an MPD, with their segments, into the offline plan: one local file per
/// segment (byte ranges of one file become files of their own), the local `manifest.mpd` naming only those
/// files, the title's protection, and the Clear Key keys to acquire.
///
/// In the local MPD a Clear Key ContentProtection names the play server's license endpoint (``localLicensePath``)
/// instead of the origin's; segment encryption (``SegmentEncryption``) names its keys `/keys/n` like an offline HLS
/// playlist (those keys come first in the plan's `keys`, so dropping a device-only title's Clear Key keys moves
/// none of them); other systems keep their license URLs (a device licenses with them).
public enum DASHPlanner {
    /// One chosen Representation of one Period and its segments.
    public struct Input: Sendable {
        public var period: Int
        public var track: RepresentationSelector.Track
        public var segments: RepresentationSegments

        public init(period: Int, track: RepresentationSelector.Track, segments: RepresentationSegments) {
            self.period = period
            self.track = track
            self.segments = segments
        }
    }

    /// The file name of the offline manifest.
    public static let manifestName = "manifest.mpd"
    /// Where `stowctl play` answers W3C Clear Key license requests for the offline copy.
    public static let localLicensePath = "/clearkey"

    /// The plan for `inputs` (in Period order, video then audio then subtitles in each); a clip (`range`) keeps
    /// only the segments that overlap it (``DASHClip``).
    public static func plan(mpd: MPD, inputs all: [Input], range: ClipRange? = nil) throws(DASHError) -> ResolvedPlan {
        let cut = try range.map { (r) throws(DASHError) in try DASHClip.cut(all, of: mpd, to: r) }
        let inputs = cut?.inputs ?? all
        var tracks: [LocalTrack] = []
        var renditions: [PlannedRendition] = []
        var resources: [PlannedResource] = []
        var protections: [ContentProtection] = []
        var segmentKeys = SegmentKeys()
        for input in inputs {
            var track = LocalTrack(mpd: mpd, period: input.period, track: input.track, segments: input.segments)
            protections += track.representation.contentProtections
            let encrypted = ProtectionSummary(track.representation.contentProtections).isEncrypted
            let keyings = try segmentKeyings(track)
            var media = 0
            let rendition = renditions.count
            renditions.append(
                PlannedRendition(
                    kind: track.kind, sourceURL: mpd.url, localPath: track.folder, playlist: "",
                    language: track.adaptationSet.lang))
            for file in track.files {
                var sealed = encrypted && file.kind != .initSection
                var cipher: SegmentCipher?
                if let keyings, file.kind != .initSection {
                    sealed = keyings[media] != nil  // segment encryption: only the crypto periods' segments
                    cipher = keyings[media].map {
                        SegmentCipher(key: segmentKeys.position($0.keyURI), iv: KeyEncoding.hexString($0.effectiveIV))
                    }
                    media += 1
                }
                var resource = PlannedResource(
                    kind: file.kind, rendition: rendition, url: file.source.url,
                    rangeOffset: file.source.range?.offset, rangeLength: file.source.range?.length,
                    localPath: file.localPath, container: file.container, encrypted: sealed, duration: file.duration)
                if file.source.urls.count > 1 { resource.alternates = Array(file.source.urls.dropFirst()) }
                resource.cipher = cipher
                resources.append(resource)
            }
            track.representation.contentProtections = localized(
                track.representation.contentProtections, keyings: keyings, keys: &segmentKeys)
            tracks.append(track)
        }
        let summary = ProtectionSummary(protections)
        var periods: [LocalMPDWriter.LocalPeriod] = []
        for (index, period) in mpd.periods.enumerated() {
            let mine = zip(inputs, tracks).filter { $0.0.period == index }.map(\.1)
            guard !mine.isEmpty else { continue }
            periods.append(.init(id: period.id, start: period.start, duration: period.duration, tracks: mine))
        }
        if cut != nil { periods = DASHClip.periodStarts(periods) }
        let duration =
            cut != nil ? nil : mpd.duration ?? periods.last.map { $0.start + $0.effectiveDuration }
        let text = LocalMPDWriter.write(periods: periods, mediaPresentationDuration: duration)
        let estimate = estimateBytes(inputs: inputs, mpd: mpd)
        var plan = ResolvedPlan(
            masterPlaylist: text, renditions: renditions, resources: resources, bytesEstimate: estimate,
            keys: segmentKeys.keys + keys(summary, base: mpd.url), manifestName: manifestName,
            protection: summary.isEncrypted ? protection(summary) : nil)
        plan.clip = cut?.span.millisecondRounded
        return plan
    }

    /// The length in seconds of the presentation `plan` (a DASH plan) stores: the sum over its Periods of the
    /// first rendition planned in each (its video, else its first audio). Each Period has renditions of its own
    /// (folders `p<period>/…`, see `LocalTrack`), so the first rendition alone is only the first Period.
    public static func duration(of plan: ResolvedPlan) -> Double {
        var seen = Set<String>()
        var total = 0.0
        for (index, rendition) in plan.renditions.enumerated() {
            let period = String(rendition.localPath.prefix { $0 != "/" })
            guard seen.insert(period).inserted else { continue }
            total += plan.resources.filter { $0.rendition == index }.reduce(0) { $0 + $1.duration }
        }
        return total
    }

    /// The Clear Key keys to acquire: one per key ID, from a Clear Key system's first license URL (empty
    /// when the MPD names none: then the title's `--license-url` or `--key` must supply them). Planned for any
    /// Common Encryption title, whatever systems it signals: the scheduler drops them when it stays device-only.
    /// A relative license URL is resolved against the MPD's URL.
    static func keys(_ summary: ProtectionSummary, base: String) -> [PlannedKey] {
        let common = summary.scheme.map { TitleProtection.commonEncryptionSchemes.contains($0) } ?? true
        guard summary.systems.contains(where: \.isClearKey) || (common && summary.isEncrypted) else { return [] }
        let server = summary.systems.filter(\.isClearKey).flatMap(\.licenseURLs).first.map {
            URL(string: $0, relativeTo: URL(string: base))?.absoluteString ?? $0
        }
        return summary.keyIDs.map {
            PlannedKey(
                uri: server ?? "", method: summary.scheme ?? "cenc",
                keyFormat: "org.w3.clearkey", keyID: "0x" + $0)
        }
    }

    /// `status --json`'s `protection` from the MPD's summary.
    public static func protection(_ summary: ProtectionSummary) -> TitleProtection {
        TitleProtection(
            scheme: summary.scheme,
            systems: summary.systems.map {
                TitleProtection.System(
                    name: $0.name ?? $0.id, systemId: $0.id, pssh: $0.pssh.first, licenseUrls: $0.licenseURLs)
            },
            kids: summary.keyIDs, licenseUrls: summary.licenseURLs, deviceOnly: summary.isDeviceOnly)
    }

    /// A Clear Key ContentProtection pointing at the play server's license endpoint.
    static func localized(_ protection: ContentProtection) -> ContentProtection {
        let uri = protection.schemeIdUri.lowercased()
        let isClearKey =
            uri == "org.w3.clearkey" || uri == "urn:uuid:org.w3.clearkey"
            || protection.systemID.map(ProtectionSummary.clearKeySystems.contains) == true
        guard isClearKey else { return protection }
        var local = protection
        local.licenseURLs = [
            .init(url: localLicensePath, element: "Laurl", namespace: "http://dashif.org/guidelines/clearKey")
        ]
        return local
    }

    /// Bandwidth × duration over every chosen Representation, bytes.
    static func estimateBytes(inputs: [Input], mpd: MPD) -> Int64 {
        OutsideNumbers.sum(
            inputs.map { input in
                let set = mpd.periods[input.period].adaptationSets[input.track.adaptationSet]
                let bandwidth = set.representations[input.track.representation].bandwidth
                return OutsideNumbers.estimate(bitsPerSecond: bandwidth, seconds: input.segments.duration)
            })
    }
}
