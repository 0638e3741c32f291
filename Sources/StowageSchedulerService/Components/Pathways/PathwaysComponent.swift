import StowageProtocol
import StowageStore

/// Where a title's files come from when its source offers several places (HLS content-steering pathways or
/// redundant variants, DASH BaseURLs): workers try each file's URLs in order (``PlannedResource/alternates``) and say
/// which one served; this component keeps the pathway that served the latest file, shows it in `status --json`
/// (`pathway`, `pathways`) and writes the event log when it changes (from which to which, and why).
final class PathwaysComponent: SchedulerComponent {
    let name = "pathways"
    private let context: ComponentContext
    /// The pathway that served each title's latest file, as stored (read once per title; changes are rare).
    private var serving: [String: String] = [:]
    /// Each title's pathways, read from its record once.
    private var known: [String: [PlannedPathway]] = [:]

    init(context: ComponentContext) { self.context = context }

    func forget(_ token: String) {
        serving[token] = nil
        known[token] = nil
    }

    /// A file of `token` arrived (`report`): when another pathway served it than the one before, the change is
    /// stored and told. A title with one place costs one dictionary lookup.
    func fetched(_ id: Int64, _ report: FetchReport, token: String) throws {
        guard let pathways = try pathways(of: token) else { return }
        let now: String
        if let index = report.servedBy {
            guard let r = try context.store.resource(id: id) else { return }
            let urls = [r.url] + (r.alternates ?? [])
            guard index < urls.count else { return }
            now = PlannedPathway.name(serving: urls[index], in: pathways)
        } else {
            guard serving[token] != nil else { return }  // the first pathway, as before
            now = pathways[0].name
        }
        let before = serving[token] ?? pathways[0].name
        guard now != before else { return }
        serving[token] = now
        guard var title = try context.store.title(token) else { return }
        title.pathway = now == pathways[0].name ? nil : now
        try context.store.update(title)
        let why = report.fellOver.map { ": \($0)" } ?? ""
        try context.desk.record(
            TitleHappening(token, kind: "pathway", detail: "files now come from pathway \(now), not \(before)\(why)"))
        context.logger.info(
            "a title's files come from another pathway",
            metadata: ["token": "\(token)", "pathway": "\(now)", "was": "\(before)"])
    }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        guard let pathways = title.pathways, !pathways.isEmpty else { return }
        status.pathways = pathways.map(\.name)
        status.pathway = serving[title.token] ?? title.pathway ?? pathways[0].name
    }

    /// The title's pathways (nil: one place), and what it stored as serving, read once.
    private func pathways(of token: String) throws -> [PlannedPathway]? {
        if let cached = known[token] { return cached.isEmpty ? nil : cached }
        let title = try context.store.title(token)
        let pathways = title?.pathways ?? []
        known[token] = pathways
        if let stored = title?.pathway { serving[token] = stored }
        return pathways.isEmpty ? nil : pathways
    }
}
