import Foundation

/// What one title's fetches may do, sent with every task (`TaskAssignment.scope`) and with a streaming play
/// (`StreamingPlan.scope`), and applied by ``HTTPFetcher`` to every request and redirect: which hosts
/// (`--allow-hosts`), which addresses (``NetworkPolicy`` and the title's reach), and which hosts get the headers
/// the title was submitted with.
public struct FetchScope: Codable, Sendable, Equatable {
    /// `--allow-hosts`; nil = any host.
    public var allowedHosts: HostAllowList?
    /// `--allow-networks` / `--deny-networks`.
    public var network: NetworkPolicy
    /// The class of the title's source address, fixed when the title was first resolved; nil = not known yet,
    /// decided by the address `source` connects to.
    public var reach: AddressClass?
    /// The title's source URL (submitted): its host gets the submitted headers, and its address decides the
    /// reach when `reach` is nil. nil = a fetch for the operator's own request (no title): any reach.
    public var source: String?
    /// More hosts that get the submitted headers (`submit --header-host`).
    public var headerHosts: [String]
    /// How slow an answer from `source`'s origin may be (set when that is a peer box's gateway: another box's
    /// pace is not this box's origin's; nil: the client's timeouts only).
    public var sourceLimits: BodyLimits?

    public init(
        allowedHosts: HostAllowList? = nil, network: NetworkPolicy = NetworkPolicy(), reach: AddressClass? = nil,
        source: String? = nil, headerHosts: [String] = []
    ) {
        self.allowedHosts = allowedHosts
        self.network = network
        self.reach = reach
        self.source = source
        self.headerHosts = headerHosts
    }

    /// The limits on an answer from `url`: ``sourceLimits`` when `url` has `source`'s origin.
    public func limits(for url: String) -> BodyLimits? {
        guard let sourceLimits, let source, URLOrigin.same(source, url) else { return nil }
        return sourceLimits
    }

    /// Headers that say nothing secret about the requester, sent to every host (some CDNs want them).
    public static let publicHeaders: Set<String> = ["user-agent", "referer", "accept", "accept-language", "origin"]

    /// The submitted `headers` that may go to `url`: all of them to the source's host and the `headerHosts`
    /// (case-insensitive, any port); only ``publicHeaders`` to any other host, so a credential (`Authorization`,
    /// `Cookie`, an API key) never reaches a host a playlist names.
    public func headers(_ headers: [Header], for url: String) -> [Header] {
        if headers.isEmpty || trusts(url) { return headers }
        return headers.filter { Self.publicHeaders.contains($0.name.lowercased()) }
    }

    /// `url`'s host gets the submitted headers: the source's host or a header host (always, without a source),
    /// and never in clear when the source was asked for over https.
    public func trusts(_ url: String) -> Bool {
        guard let source else { return true }
        guard let target = URL(string: url), let host = target.host?.lowercased(), let origin = URL(string: source)
        else { return false }
        if origin.scheme?.lowercased() == "https" && target.scheme?.lowercased() != "https" { return false }
        return origin.host?.lowercased() == host || headerHosts.contains { $0.lowercased() == host }
    }
}
