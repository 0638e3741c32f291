import StowageProtocol

/// One reload of a live DASH recording's MPD for the whole title: every rendition still recording takes what is
/// new (``LiveDASHRecorder``), and when the recorded Period is over — it got an end and every segment of it was
/// taken, or it left the MPD — the next Period the MPD lists carries the recording on: it is planned by the same
/// selection rules (``LiveDASHPlanner``, Period and Representation ids may differ), its renditions follow the
/// earlier ones, its keys not met before are new keys (Clear Key KIDs of a key change), and it is merged in the
/// same reload. The recording ends only when the MPD says the presentation ended (it turned `static` or got a
/// `mediaPresentationDuration` and no later Period is listed), at `--duration`, or when the availability ended;
/// a Period that ended while the MPD stays dynamic without a next Period is a wait for the next one.
///
/// Pure, on the origin's clock `now` it is given: the scheduler stores what it returns.
public enum LiveDASHPeriods {
    /// A Period the recording entered with this reload.
    public struct NewPeriod: Sendable {
        /// The rendition position of its first rendition (they follow every earlier one).
        public var firstRendition: Int
        /// Its renditions, initialization segments, keys whose KIDs the recording had not met, protection, and
        /// (`masterPlaylist`) the manifest template with this Period added: judged as any plan before it is stored.
        public var plan: ResolvedPlan
        /// Each rendition's state before this reload's segments (stored with the rendition, so a restart between
        /// the two carries on).
        public var startStates: [LiveDASHRendition]
        /// The recorded Period it is (1 the second).
        public var ordinal: Int
    }

    /// What one reload changes.
    public struct Reload: Sendable {
        /// Every rendition's state after the reload, by position (the new Periods' included).
        public var states: [LiveDASHRendition]
        /// What each rendition took, by position (only those that recorded with this reload).
        public var deltas: [Int: LiveDASHRecorder.Delta] = [:]
        public var newPeriods: [NewPeriod] = []
        /// Why the recording ends, or nil.
        public var end: String?
        /// Seconds to the next reload.
        public var targetDuration: Double = 2
        /// Something new: segments, a gap, a Period or the end.
        public var changed: Bool { deltas.values.contains(where: \.changed) || !newPeriods.isEmpty || end != nil }
    }

    /// The reload of `mpd` read when the origin's clock said `now`, for a recording whose renditions are
    /// `states` (in position order) and whose manifest template is `template`; `knownKeyIDs` are the KIDs
    /// (`0x…`, as ``PlannedKey/keyID``) it has already.
    public static func reload(
        states: [LiveDASHRendition], template: String, mpd: MPD, now: Double, record: RecordRequest,
        selection: Selection, knownKeyIDs: Set<String>
    ) throws(DASHError) -> Reload {
        var out = Reload(states: states)
        var template = template
        var known = knownKeyIDs
        try merge(&out, from: 0, mpd: mpd, now: now, record: record)
        // A short Period may be over by the time the recording enters it: go on as long as Periods end.
        for _ in 0..<max(1, mpd.periods.count) {
            guard let current = out.states.map(\.ordinal).max() else { break }
            let latest = out.states.filter { $0.ordinal == current }
            guard latest.allSatisfy(\.ended) else { break }
            if latest.contains(where: { $0.periodEnded != true }) {
                out.end = endReason(out, of: current, record: record)
                break
            }
            guard let next = nextPeriod(after: latest, in: mpd) else {
                if mpd.type == .static {
                    out.end = "the MPD turned static"
                } else if mpd.mediaPresentationDuration != nil {
                    out.end = "the MPD got a mediaPresentationDuration"
                }
                break
            }
            let before = latest.map(\.recordingSeconds).max() ?? 0
            if let limit = record.durationSeconds, before >= limit - 0.001 {
                out.end = "the requested duration was recorded"
                break
            }
            let planned = try LiveDASHPlanner.plan(
                mpd: mpd, selection: selection, period: next, ordinal: current + 1,
                firstRendition: out.states.count, secondsBefore: before)
            var plan = planned.plan
            plan.keys = plan.keys.filter { key in key.keyID.map { !known.contains($0) } ?? true }
            known.formUnion(plan.keys.compactMap(\.keyID))
            template = LiveDASHManifest.adding(plan.masterPlaylist ?? "", to: template)
            plan.masterPlaylist = template
            out.newPeriods.append(
                NewPeriod(
                    firstRendition: out.states.count, plan: plan, startStates: planned.states, ordinal: current + 1))
            let first = out.states.count
            out.states += planned.states
            try merge(&out, from: first, mpd: mpd, now: now, record: record)
        }
        out.targetDuration =
            out.states.filter { !$0.ended }.map(\.targetDuration).min()
            ?? out.states.map(\.targetDuration).min() ?? 2
        return out
    }

    /// Merges every rendition from position `first` on that is still recording.
    static func merge(_ out: inout Reload, from first: Int, mpd: MPD, now: Double, record: RecordRequest)
        throws(DASHError)
    {
        for position in first..<out.states.count where !out.states[position].ended {
            out.deltas[position] = try LiveDASHRecorder.merge(
                &out.states[position], rendition: position, mpd: mpd, now: now, record: record)
        }
    }

    /// Why a Period's renditions that did not end with their Period ended: the reason one gave with this reload,
    /// else the requested duration when it was reached.
    static func endReason(_ out: Reload, of ordinal: Int, record: RecordRequest) -> String {
        let given = out.deltas.sorted { $0.key < $1.key }.lazy
            .filter { out.states[$0.key].ordinal == ordinal && out.states[$0.key].periodEnded != true }
            .compactMap(\.value.endReason).first
        if let given { return given }
        let reached = record.durationSeconds.map { limit in
            out.states.contains { $0.ordinal == ordinal && $0.recordingSeconds >= limit - 0.001 }
        }
        return reached == true ? "the requested duration was recorded" : "the stream ended"
    }

    /// The index in `mpd` of the Period after the one `latest` recorded: the first that starts later.
    static func nextPeriod(after latest: [LiveDASHRendition], in mpd: MPD) -> Int? {
        let start =
            latest.compactMap(\.periodStart).max()
            ?? latest.first.flatMap { state in LiveDASHRecorder.find(state, in: mpd)?.0.start } ?? 0
        return mpd.periods.firstIndex { $0.start > start + 0.001 }
    }
}
