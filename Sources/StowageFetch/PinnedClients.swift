import AsyncHTTPClient
import StowageProtocol
import Synchronization

/// HTTP clients that connect a host name to one address checked by ``AddressGuard`` (async-http-client's
/// `dnsOverride`: TLS still names and verifies the host, the `Host` header is the host's), so the address a
/// request reaches is the address that was judged, not whatever the name resolves to a moment later.
/// One client per (host, address), the oldest shut down beyond ``capacity``.
final class PinnedClients: Sendable {
    /// Distinct (host, address) pairs kept: a title names a handful of hosts.
    static let capacity = 32

    private struct State {
        var clients: [String: HTTPClient] = [:]
        var order: [String] = []
    }
    private let state = Mutex(State())
    private let configuration: HTTPClient.Configuration

    init(configuration: HTTPClient.Configuration) { self.configuration = configuration }

    /// The client whose connections to `host` go to `address`.
    func client(host: String, address: IPAddress) -> HTTPClient {
        let key = "\(host.lowercased())@\(address)"
        let (client, retired) = state.withLock { s -> (HTTPClient, HTTPClient?) in
            if let client = s.clients[key] { return (client, nil) }
            var config = configuration
            config.dnsOverride = [host: "\(address)"]
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
            s.clients[key] = client
            s.order.append(key)
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
