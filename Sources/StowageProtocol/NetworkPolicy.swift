import Foundation

/// Which addresses a title's fetches may connect to: the operator's `--allow-networks` and `--deny-networks`
/// over the address classes (``AddressClass``). Judged on the address actually connected to (after name
/// resolution, for every request and every redirect), so a name that resolves inward is refused like the address.
///
/// Order of the rules: a denied network is refused; an allowed network is allowed; link-local, unspecified,
/// multicast, broadcast and reserved addresses are refused; an address deeper than the title's reach (the class of
/// its source URL's address) is refused; anything else is allowed.
public struct NetworkPolicy: Codable, Sendable, Equatable {
    /// Opened by the operator, whatever the class (e.g. a LAN CDN that public playlists name).
    public var allow: [IPNetwork]
    /// Closed by the operator (e.g. the box's management subnet); wins over `allow`.
    public var deny: [IPNetwork]

    public init(allow: [IPNetwork] = [], deny: [IPNetwork] = []) {
        self.allow = allow
        self.deny = deny
    }

    /// nil when a title whose reach is `reach` may connect to `address`; else why not, in words.
    public func refusal(of address: IPAddress, reach: AddressClass) -> String? {
        if let network = deny.first(where: { $0.contains(address) }) {
            return "\(address) is in a denied network (\(network), --deny-networks)"
        }
        if allow.contains(where: { $0.contains(address) }) { return nil }
        switch AddressClass.kind(of: address) {
        case .alwaysRefused(let what):
            return "\(address) is a \(what) address, never fetched (open it with --allow-networks)"
        case .reachable(let target) where target > reach:
            return "\(address) is a \(target) address and this title's source is a \(reach) address "
                + "(a title reaches no address deeper in than its source's; --allow-networks opens ranges)"
        case .reachable:
            return nil
        }
    }

    /// The reach a title gets from the address its source URL connects to: that address's class (an address the
    /// operator allowed explicitly counts as private; one never reachable gives the narrowest reach, public).
    public func reach(ofSource address: IPAddress) -> AddressClass {
        switch AddressClass.kind(of: address) {
        case .reachable(let c): c
        case .alwaysRefused: allow.contains(where: { $0.contains(address) }) ? .private : .public
        }
    }

    /// The reach the scheduler keeps for a title whose first resolve reported `reported` (a worker's word): an
    /// address in the source URL is judged here; only `localhost` names (RFC 6761) may bring the loopback reach,
    /// so a worker key cannot open the box's own services to a title from a name (it could at most claim a
    /// LAN source).
    public func acceptedReach(reported: AddressClass, source: String) -> AddressClass {
        guard let host = URLHost.of(source)?.lowercased() else { return .public }
        if let address = IPAddress(host) { return reach(ofSource: address) }
        if host == "localhost" || host.hasSuffix(".localhost") { return reported }
        return min(reported, .private)
    }
}
