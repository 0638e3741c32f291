import StowageProtocol

/// The plan of a live DASH recording (`submit --record URL.mpd`): the same selection rules as a static title pick
/// the Representations of the recorded Period, each gets its folder and its initialization segment; the media
/// segments come later, reload by reload (``LiveDASHRecorder``). The local manifest is a template
/// (``LiveDASHManifest``) filled as they come.
///
/// The recorded Period is the MPD's first: a recording ends where that Period ends (several Periods in one
/// recording, and key rotation across them, are not supported yet). Segment encryption (`sea:`) is refused: its
/// crypto periods would need renumbering reload by reload. A trick-mode set is never recorded, `--iframes` or not
/// (as a live HLS recording keeps no I-frame playlist).
public enum LiveDASHPlanner {
    /// The plan, and each rendition's starting state (in rendition order).
    public static func plan(
        mpd: MPD, selection: Selection
    ) throws(DASHError) -> (plan: ResolvedPlan, states: [LiveDASHRendition]) {
        var selection = selection
        selection.iframes = nil
        guard let choice = try RepresentationSelector.select(mpd, selection).first else {
            throw DASHError.missing("Period", "AdaptationSet", "the MPD has no Period to record")
        }
        let period = mpd.periods[choice.period]
        var tracks: [LocalTrack] = []
        var renditions: [PlannedRendition] = []
        var resources: [PlannedResource] = []
        var states: [LiveDASHRendition] = []
        var protections: [ContentProtection] = []
        for chosen in choice.tracks {
            let set = period.adaptationSets[chosen.adaptationSet]
            var representation = set.representations[chosen.representation]
            guard case .template(let template) = representation.segmentInformation, template.media != nil else {
                throw DASHError.missing(
                    "SegmentTemplate", "media",
                    "Representation '\(representation.id)': a live recording takes SegmentTemplate addressing")
            }
            if representation.contentProtections.contains(where: { $0.segmentEncryption != nil }) {
                throw DASHError.invalid(
                    "ContentProtection", "schemeIdUri", SegmentEncryption.scheme,
                    "supported in a live recording: DASH segment encryption is for static MPDs only")
            }
            let initialization = try SegmentAddresser.initialization(template, representation)
            var track = LocalTrack(
                mpd: mpd, period: choice.period, track: chosen,
                segments: RepresentationSegments(
                    initialization: initialization, timescale: template.timescale ?? 1, segments: []))
            protections += representation.contentProtections
            let position = renditions.count
            renditions.append(
                PlannedRendition(
                    kind: track.kind, sourceURL: mpd.url, localPath: track.folder, playlist: "",
                    language: set.lang))
            if let initialization, let path = track.initializationPath {
                var resource = PlannedResource(
                    kind: .initSection, rendition: position, url: initialization.url,
                    rangeOffset: initialization.range?.offset, rangeLength: initialization.range?.length,
                    localPath: path, container: track.container, encrypted: false, duration: 0)
                if initialization.urls.count > 1 { resource.alternates = Array(initialization.urls.dropFirst()) }
                resources.append(resource)
            }
            representation.contentProtections = representation.contentProtections.map(DASHPlanner.localized)
            track.representation = representation
            tracks.append(track)
            states.append(
                LiveDASHRendition(
                    folder: track.folder, kind: track.kind, periodID: period.id, periodIndex: choice.period,
                    adaptationSet: chosen.adaptationSet, representationID: representation.id))
        }
        let summary = ProtectionSummary(protections)
        let text = LiveDASHManifest.template(
            period: .init(id: period.id, start: 0, duration: nil, tracks: tracks))
        let plan = ResolvedPlan(
            masterPlaylist: text, renditions: renditions, resources: resources, bytesEstimate: nil,
            keys: DASHPlanner.keys(summary, base: mpd.url), manifestName: DASHPlanner.manifestName,
            protection: summary.isEncrypted ? DASHPlanner.protection(summary) : nil)
        return (plan, states)
    }
}
