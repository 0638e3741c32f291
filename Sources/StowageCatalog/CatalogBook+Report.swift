import StowageProtocol

extension CatalogBook {
    /// A title as the report needs it.
    public struct TitleFacts: Sendable {
        public var state: TitleState
        public var error: TitleError?
        public var suspendedReason: SuspendedReason?

        public init(state: TitleState, error: TitleError?, suspendedReason: SuspendedReason? = nil) {
            self.state = state
            self.error = error
            self.suspendedReason = suspendedReason
        }
    }

    /// `catalog status`: each entry's phase from the titles' states; `time` formats wall-clock seconds.
    public func report(titles: [String: TitleFacts], operatorIDs: Set<String>, time: (Double?) -> String?)
        -> CatalogReport
    {
        var entries: [CatalogEntryStatus] = []
        let index = CatalogMemberIndex(members)
        for entry in catalog?.titles ?? [] {
            let current = index.current[entry.id]
            let incoming = index.incoming[entry.id]
            guard let current else {
                let phase: CatalogEntryStatus.Phase =
                    operatorIDs.contains(entry.id) ? .heldByOperator : .downloading
                entries.append(CatalogEntryStatus(id: entry.id, token: nil, phase: phase))
                continue
            }
            var line = CatalogEntryStatus(id: entry.id, token: current.token, phase: .downloading)
            line.replacing = incoming?.token
            let facts = titles[current.token]
            switch facts?.state {
            case .completed?: line.phase = .present
            case .failed?, .canceled?:
                line.phase = .failed
                line.error = facts?.error
            case .suspended? where facts?.suspendedReason?.rawValue == "window":
                line.phase = .waitingForWindow
            default: line.phase = .downloading
            }
            if let incoming, let facts = titles[incoming.token], [.failed, .canceled].contains(facts.state) {
                line.error = facts.error  // the old copy stays; the new one failed
            }
            entries.append(line)
        }
        for member in members where member.removeAt != nil {
            entries.append(
                CatalogEntryStatus(
                    id: member.id, token: member.token, phase: .toBeRemoved, removeAt: time(member.removeAt)))
        }
        return CatalogReport(
            version: catalog?.version, source: source, appliedAt: time(appliedAt), lastFetchAt: time(lastFetchAt),
            lastError: lastError, entries: entries)
    }
}
