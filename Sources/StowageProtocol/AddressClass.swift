/// How far inside the box's own networks an address lies, from outside in: `public` < `private` (RFC 1918,
/// unique-local `fc00::/7`, shared `100.64.0.0/10`) < `loopback`. A title may reach the class of its own source
/// URL's address and the classes outside it (``NetworkPolicy``): a public playlist cannot make the box fetch from
/// its LAN or from itself.
public enum AddressClass: String, Codable, Sendable, CaseIterable, Comparable {
    case `public`
    case `private`
    case loopback

    /// Outside in.
    private var depth: Int {
        switch self {
        case .public: 0
        case .private: 1
        case .loopback: 2
        }
    }

    public static func < (a: AddressClass, b: AddressClass) -> Bool { a.depth < b.depth }

    /// What an address is: a class a title may reach, or a kind no title ever reaches.
    public enum Kind: Equatable, Sendable {
        case reachable(AddressClass)
        /// Link-local (cloud metadata at 169.254.169.254), unspecified, multicast, broadcast or reserved:
        /// named in words for the refusal.
        case alwaysRefused(String)
    }

    /// The kind of `address` (an IPv6 form carrying an IPv4 address is judged as that address).
    public static func kind(of address: IPAddress) -> Kind {
        let a = address.effective
        for (network, kind) in a.isIPv4 ? ipv4 : ipv6 where network.contains(a) { return kind }
        return .reachable(.public)
    }

    private static func table(_ rows: [(String, Kind)]) -> [(IPNetwork, Kind)] {
        rows.map { (IPNetwork(parsing: $0.0)!, $0.1) }
    }

    private static let ipv4 = table([
        ("0.0.0.0/8", .alwaysRefused("unspecified")),
        ("127.0.0.0/8", .reachable(.loopback)),
        ("10.0.0.0/8", .reachable(.private)),
        ("172.16.0.0/12", .reachable(.private)),
        ("192.168.0.0/16", .reachable(.private)),
        ("100.64.0.0/10", .reachable(.private)),
        ("198.18.0.0/15", .reachable(.private)),
        ("192.0.0.0/24", .reachable(.private)),
        ("169.254.0.0/16", .alwaysRefused("link-local (cloud metadata)")),
        ("224.0.0.0/4", .alwaysRefused("multicast")),
        ("255.255.255.255/32", .alwaysRefused("broadcast")),
        ("240.0.0.0/4", .alwaysRefused("reserved")),
    ])

    private static let ipv6 = table([
        ("::/128", .alwaysRefused("unspecified")),
        ("::1/128", .reachable(.loopback)),
        ("fe80::/10", .alwaysRefused("link-local")),
        ("2001::/32", .alwaysRefused("Teredo tunnel")),
        ("ff00::/8", .alwaysRefused("multicast")),
        ("fc00::/7", .reachable(.private)),
        ("fec0::/10", .reachable(.private)),
    ])
}
