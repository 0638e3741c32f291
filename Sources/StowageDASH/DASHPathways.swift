import StowageProtocol

/// The places a DASH title's files come from, named for `status`: each `BaseURL` of the MPD (or of its first Period)
/// by its `serviceLocation`, else by its host. Files already carry every BaseURL as their alternates (the planner
/// resolves each against all of them); this only names them.
public enum DASHPathways {
    /// Nil when the plan's files have one place (no resource has an alternate).
    public static func named(_ mpd: MPD, plan: ResolvedPlan) -> [PlannedPathway]? {
        guard mpd.serviceLocations.count > 1, plan.resources.contains(where: { $0.alternates?.isEmpty == false })
        else { return nil }
        var result: [PlannedPathway] = []
        for place in mpd.serviceLocations {
            guard let origin = PlannedPathway.origin(of: place.url) else { continue }
            let name = place.name ?? PlannedPathway.host(ofOrigin: origin)
            if let i = result.firstIndex(where: { $0.name == name }) {
                if !result[i].origins.contains(origin) { result[i].origins.append(origin) }
            } else {
                result.append(PlannedPathway(name: name, origins: [origin]))
            }
        }
        return result.count > 1 ? Array(result.prefix(16)) : nil
    }
}
