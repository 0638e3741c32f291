import StowageProtocol

/// The box's convergence on its catalogue as one pure decision: the catalogue in force, the titles it added,
/// their states, the titles being played and the time in; what to do out. Run again after every change (a new
/// catalogue, a title completing, time passing) until it answers nothing.
///
/// - A listed id the box lacks is submitted (unless a hand-submitted title holds that id: the operator's).
/// - A listed id whose url or selection changed gets a new copy (`submitReplacement`); once that copy is
///   complete the id moves to it (`swap`) and the old copy leaves. Devices play the old one until then.
/// - A title that left the catalogue is removed `grace` seconds later (not before its `keepUntil`); one listed
///   again is kept.
/// - Nothing is deleted while a device plays it.
public enum CatalogReconciler {
    public enum Effect: Sendable, Equatable {
        /// Submit the entry as a new title with its id.
        case submit(CatalogEntry)
        /// Submit a new copy of the entry, without the id (it moves at ``swap``).
        case submitReplacement(CatalogEntry)
        /// The new copy is complete: the id (and the gateway's `/titles/<id>/`) moves from `old` to `new`.
        case swap(id: String, old: String, new: String)
        /// Delete `token` at `at` (wall clock), if no device plays it then.
        case scheduleRemoval(token: String, at: Double)
        /// Listed again: keep `token`.
        case keep(token: String)
        /// Delete the title now (files and record).
        case delete(token: String)
    }

    /// What the decision looks at.
    public struct Facts: Sendable {
        public var catalog: Catalog?
        public var members: [CatalogMember]
        /// The state of every title the members name.
        public var states: [String: TitleState]
        /// Ids held by titles the catalogue did not add.
        public var operatorIDs: Set<String>
        /// Tokens a device is playing now.
        public var playing: Set<String>
        /// Wall-clock seconds.
        public var now: Double
        /// `--catalog-grace` in seconds.
        public var grace: Double

        public init(
            catalog: Catalog?, members: [CatalogMember], states: [String: TitleState], operatorIDs: Set<String>,
            playing: Set<String>, now: Double, grace: Double
        ) {
            self.catalog = catalog
            self.members = members
            self.states = states
            self.operatorIDs = operatorIDs
            self.playing = playing
            self.now = now
            self.grace = grace
        }
    }

    /// The effects that bring the box closer to its catalogue.
    public static func reconcile(_ facts: Facts) -> [Effect] {
        guard let catalog = facts.catalog else { return [] }
        var effects: [Effect] = []
        let listed = Set(catalog.titles.map(\.id))
        let active = facts.members.filter { $0.removeAt == nil }
        var kept = Set<String>()
        let index = CatalogMemberIndex(facts.members)
        for entry in catalog.titles {
            let current = index.current[entry.id]
            let incoming = index.incoming[entry.id]
            guard let current else {
                if !facts.operatorIDs.contains(entry.id) { effects.append(.submit(entry)) }
                continue
            }
            if current.removeAt != nil {
                effects.append(.keep(token: current.token))
                kept.insert(current.token)
            }
            if entry.sameCopy(url: current.url, selection: current.selection, range: current.range) {
                if let incoming { effects.append(.scheduleRemoval(token: incoming.token, at: facts.now)) }
                continue
            }
            if let incoming, entry.sameCopy(url: incoming.url, selection: incoming.selection, range: incoming.range) {
                if facts.states[incoming.token] == .completed {
                    effects.append(.swap(id: entry.id, old: current.token, new: incoming.token))
                }
                continue
            }
            if let incoming { effects.append(.scheduleRemoval(token: incoming.token, at: facts.now)) }
            effects.append(.submitReplacement(entry))
        }
        for member in active where !listed.contains(member.id) && member.role != .leaving {
            // A title the catalogue keeps until a date goes after its grace and after that date.
            let at = member.role == .incoming ? facts.now : max(facts.now + facts.grace, member.keepUntil ?? 0)
            effects.append(.scheduleRemoval(token: member.token, at: at))
        }
        for member in facts.members where !kept.contains(member.token) {
            guard let at = member.removeAt, at <= facts.now, !facts.playing.contains(member.token) else { continue }
            effects.append(.delete(token: member.token))
        }
        return effects
    }
}

extension CatalogEntry {
    /// What `stowctl submit` would send for this entry; `withID` false for a new copy that replaces one held
    /// (the id moves to it when it is complete).
    public func submitRequest(withID: Bool) -> SubmitRequest {
        var request = SubmitRequest(
            url: url, name: name ?? id, priority: priority?.value ?? 0, headers: [],
            selection: selection ?? Selection(), terms: license, licenseURL: licenseURL)
        request.posterURL = poster
        request.id = withID ? id : nil
        request.window = window
        request.file = file
        request.range = clipRange
        if priority == .urgent { request.now = true }  // urgent: fetched at once, whatever the windows say
        return request
    }
}
