import Foundation
import StowageProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one place where a fetch's destination address is decided: resolves a URL's host (the system resolver,
/// answers kept ``cacheSeconds``), and returns the first address the running task's ``FetchScope`` allows, which
/// the caller then connects to (never the name again: a name that re-resolves inward between check and connect
/// gets nowhere). When every address is refused the fetch fails `refused`, naming the URL and the address: a
/// hostile playlist cannot make the box reach its own network, and nothing retries it.
public final class AddressGuard: Sendable {
    /// One per process: the cache is shared by every fetch.
    public static let shared = AddressGuard()

    /// How long a name's addresses are reused (a short time: a name that moves is followed soon).
    static let cacheSeconds = 10.0

    private struct Entry {
        let addresses: [IPAddress]
        let until: Double
    }
    private let cache = Mutex<[String: Entry]>([:])

    /// The address to connect to for `url` (its host a name or an address), checked against `scope`.
    public func address(for url: String, scope: FetchScope) async throws(TaskFailure) -> IPAddress {
        try await addresses(for: url, scope: scope)[0]
    }

    /// Every address of `url`'s host that `scope` allows, in the resolver's order (never empty: when none is
    /// allowed the fetch fails `refused`, naming the first refusal).
    public func addresses(for url: String, scope: FetchScope) async throws(TaskFailure) -> [IPAddress] {
        guard let host = Self.host(of: url) else {
            throw TaskFailure(code: .refused, message: "\(Self.shown(url)): no host in the URL", retryable: false)
        }
        let reach = try await reach(of: scope)
        let addresses = try await resolve(host, url: url)
        var refusals: [String] = []
        var allowed: [IPAddress] = []
        for address in addresses {
            if let why = scope.network.refusal(of: address, reach: reach) {
                refusals.append(why)
            } else {
                allowed.append(address)
            }
        }
        if !allowed.isEmpty { return allowed }
        let name = IPAddress(host) == nil ? "\(host) resolves to " : ""
        throw TaskFailure(
            code: .refused, message: "\(Self.shown(url)): \(name)\(refusals.first ?? "no address"); not fetched",
            retryable: false)
    }

    /// How far in the scope's title may reach: its stored reach, or the class of the addresses its source URL
    /// resolves to; a fetch that is not a title's (the operator's own, `source` nil) may reach anything.
    public func reach(of scope: FetchScope) async throws(TaskFailure) -> AddressClass {
        if let reach = scope.reach { return reach }
        guard let source = scope.source else { return .loopback }
        guard let host = Self.host(of: source) else { return .public }
        // The most outward class among the source's addresses: a name that also answers with an inner address
        // (which the fetch may not even connect to) gets no deeper reach from it.
        // As the scheduler keeps it (``NetworkPolicy/acceptedReach(reported:source:)``): only an address or a
        // `localhost` name brings the loopback reach.
        let addresses = try await resolve(host, url: source)
        let found = addresses.map(scope.network.reach(ofSource:)).min() ?? .public
        return scope.network.acceptedReach(reported: found, source: source)
    }

    /// The addresses of `host` (itself when it is an address), in the resolver's order.
    func resolve(_ host: String, url: String) async throws(TaskFailure) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        let key = host.lowercased()
        let now = ProcessInfo.processInfo.systemUptime
        if let hit = cache.withLock({ $0[key] }), hit.until > now { return hit.addresses }
        let answer = await BlockingIO.run { Self.lookup(key) }
        switch answer {
        case .success(let addresses):
            cache.withLock { cache in
                if cache.count > 4096 { cache.removeAll() }
                cache[key] = Entry(addresses: addresses, until: now + Self.cacheSeconds)
            }
            return addresses
        case .failure(let error):
            var failure = TaskFailure(
                code: .network, message: "\(Self.shown(url)): \(error.description)", retryable: true)
            failure.endpoint = NetworkErrorText.endpoint(of: url)
            throw failure
        }
    }

    /// Answers `host` with `addresses` for ``cacheSeconds``, as if the resolver had: tests show that a request
    /// connects to the address that was checked, not to what the name resolves to when connecting.
    package func remember(_ host: String, as addresses: [IPAddress]) {
        let until = ProcessInfo.processInfo.systemUptime + Self.cacheSeconds
        cache.withLock { $0[host.lowercased()] = Entry(addresses: addresses, until: until) }
    }

    /// A name the system resolver could not turn into addresses.
    struct LookupError: Error, CustomStringConvertible {
        let host: String
        let reason: String
        var description: String { "no such host \(host) (\(reason))" }
    }

    private static func lookup(_ host: String) -> Result<[IPAddress], LookupError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            return .failure(LookupError(host: host, reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let sockaddr = info.pointee.ai_addr, let address = Self.address(of: sockaddr),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            cursor = info.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(LookupError(host: host, reason: "no address")) : .success(addresses)
    }

    private static func address(of sockaddr: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(sockaddr.pointee.sa_family) {
        case AF_INET:
            return sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var a = v4.pointee.sin_addr
                return IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) })
            }
        case AF_INET6:
            return sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var a = v6.pointee.sin6_addr
                return IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) })
            }
        default:
            return nil
        }
    }

    /// The host of `url` without IPv6 brackets, as the HTTP client connects to it.
    static func host(of url: String) -> String? { URLHost.of(url) }

    private static func shown(_ url: String) -> String { String(URLRedaction.redacted(url).prefix(200)) }
}
