import AsyncHTTPClient
import StowageProtocol
import Synchronization

/// HTTP clients that connect a host name to one address checked by ``AddressGuard`` (async-http-client's
/// `dnsOverride`: TLS still names and verifies the host, the `Host` header is the host's), so the address a
/// request reaches is the address that was judged, not whatever the name resolves to a moment later.
/// One client per (host, address); a host keeps its client while its address is still among the allowed ones
/// (a CDN that rotates its answers does not get a new client, and a new TLS handshake, every few seconds), and the
/// least recently used client beyond ``capacity`` is shut down.
final class PinnedClients: Sendable {
    /// Distinct (host, address) pairs kept: a title names a handful of hosts.
    static let capacity = 64

    private struct State {
        var clients: [String: HTTPClient] = [:]
        /// Keys, least recently used first.
        var order: [String] = []

        mutating func touch(_ key: String) {
            if let i = order.firstIndex(of: key) { order.remove(at: i) }
            order.append(key)
        }
    }
    private let state = Mutex(State())
    private let configuration: HTTPClient.Configuration

    init(configuration: HTTPClient.Configuration) { self.configuration = configuration }

    /// The client whose connections to `host` go to one of `allowed` (not empty): the one in use when there is.
    func client(host: String, allowed: [IPAddress]) -> HTTPClient {
        // The host exactly as the URL writes it: the client looks its override up by that spelling.
        let name = host
        let (client, retired) = state.withLock { s -> (HTTPClient, HTTPClient?) in
            if let key = allowed.map({ "\(name)@\($0)" }).first(where: { s.clients[$0] != nil }),
                let client = s.clients[key]
            {
                s.touch(key)
                return (client, nil)
            }
            var config = configuration
            config.dnsOverride = [host: "\(allowed[0])"]
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
            let key = "\(name)@\(allowed[0])"
            s.clients[key] = client
            s.touch(key)
            guard s.order.count > Self.capacity else { return (client, nil) }
            return (client, s.clients.removeValue(forKey: s.order.removeFirst()))
        }
        if let retired { Task { try? await retired.shutdown() } }
        return client
    }

    func shutdown() async {
        for client in takeAll() { try? await client.shutdown() }
    }

    func syncShutdown() {
        for client in takeAll() { try? client.syncShutdown() }
    }

    private func takeAll() -> [HTTPClient] {
        state.withLock { s in
            defer { s = State() }
            return Array(s.clients.values)
        }
    }
}
