import StowageProtocol

/// The plan of a live DASH recording (`submit --record URL.mpd`): the same selection rules as a static title pick
/// the Representations of the recorded Period, each gets its folder and its initialization segment; the media
/// segments come later, reload by reload (``LiveDASHRecorder``). The local manifest is a template
/// (``LiveDASHManifest``) filled as they come.
///
/// The recording starts with the MPD's first Period; each later Period is planned the same way when it begins
/// (``LiveDASHPeriods``), its renditions after the earlier ones and its files under `p<n>/`, n counting the
/// recorded Periods (a live MPD's Period indexes move as Periods leave it). Segment encryption (`sea:`) is
/// refused: its crypto periods would need renumbering reload by reload.
/// A trick-mode set is never recorded, `--iframes` or not (as a live HLS recording keeps no I-frame playlist).
public enum LiveDASHPlanner {
    /// One recorded Period as planned: its renditions, initialization segments and keys, the local manifest
    /// template of this Period alone, and each rendition's starting state (in rendition order).
    public struct PeriodPlan: Sendable {
        public var plan: ResolvedPlan
        public var states: [LiveDASHRendition]
    }

    /// The plan of a recording's first Period, and each rendition's starting state (in rendition order).
    public static func plan(
        mpd: MPD, selection: Selection
    ) throws(DASHError) -> (plan: ResolvedPlan, states: [LiveDASHRendition]) {
        var selection = selection
        selection.iframes = nil
        guard let first = try RepresentationSelector.select(mpd, selection).first else {
            throw DASHError.missing("Period", "AdaptationSet", "the MPD has no Period to record")
        }
        let planned = try plan(mpd: mpd, selection: selection, period: first.period, ordinal: 0)
        return (planned.plan, planned.states)
    }

    /// The plan of Period `index` of `mpd` as the recording's `ordinal`-th Period: its renditions numbered from
    /// `firstRendition`, its timeline starting `secondsBefore` seconds into the recording, its manifest
    /// template's tracks numbered from `firstRendition` (the n-th SegmentTemplate is the n-th rendition).
    public static func plan(
        mpd: MPD, selection: Selection, period index: Int, ordinal: Int, firstRendition: Int = 0,
        secondsBefore: Double = 0
    ) throws(DASHError) -> PeriodPlan {
        var selection = selection
        selection.iframes = nil
        guard let choice = try RepresentationSelector.select(mpd, selection).first(where: { $0.period == index })
        else { throw DASHError.missing("Period", "AdaptationSet", "Period \(index) has nothing to record") }
        let period = mpd.periods[index]
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
                mpd: mpd, period: index, track: chosen,
                segments: RepresentationSegments(
                    initialization: initialization, timescale: template.timescale ?? 1, segments: []))
            // Named by the recorded Period, not the MPD's index of it: a live MPD's first Period leaves it.
            track.folder = "p\(ordinal)/" + track.folder.drop { $0 != "/" }.dropFirst()
            protections += representation.contentProtections
            let position = firstRendition + renditions.count
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
            var state = LiveDASHRendition(
                folder: track.folder, kind: track.kind, periodID: period.id, periodIndex: index,
                adaptationSet: chosen.adaptationSet, representationID: representation.id)
            if ordinal > 0 {
                state.recordedPeriod = ordinal
                state.secondsBefore = secondsBefore
                state.periodStart = period.start
            }
            states.append(state)
        }
        let summary = ProtectionSummary(protections)
        let text = LiveDASHManifest.template(
            period: .init(id: period.id ?? "p\(ordinal)", start: 0, duration: nil, tracks: tracks),
            ordinal: ordinal, firstTrack: firstRendition)
        let plan = ResolvedPlan(
            masterPlaylist: text, renditions: renditions, resources: resources, bytesEstimate: nil,
            keys: DASHPlanner.keys(summary, base: mpd.url), manifestName: DASHPlanner.manifestName,
            protection: summary.isEncrypted ? DASHPlanner.protection(summary) : nil)
        return PeriodPlan(plan: plan, states: states)
    }
}
