import Foundation
import StowageRuntime

/// Who this scheduler is in the leader row: a holder id no other process shares (host name, pid and a random
/// part, so a restarted process on the same pid is another holder), and the endpoints clients reach it at (its
/// `--bind` tcp endpoints with a wildcard host replaced by the host name; a scheduler bound to ipc only: its ipc
/// endpoint, reachable on its own host only).
struct LeaderIdentity {
    let holder: String
    let endpoints: [String]

    init(binds: [String], home: StowageHome, hostName: String = ProcessInfo.processInfo.hostName) {
        holder = "\(hostName)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        let tcp = binds.filter { $0.hasPrefix("tcp://") }.map { Self.reachable($0, hostName: hostName) }
        endpoints = tcp.isEmpty ? [home.defaultEndpoint] : tcp
    }

    /// `tcp://0.0.0.0:7700`, `tcp://*:7700`, `tcp://[::]:7700` → `tcp://HOST:7700`; any other endpoint as it is.
    static func reachable(_ endpoint: String, hostName: String) -> String {
        let rest = endpoint.dropFirst("tcp://".count)
        for wildcard in ["0.0.0.0:", "*:", "[::]:"] where rest.hasPrefix(wildcard) {
            return "tcp://\(hostName):\(rest.dropFirst(wildcard.count))"
        }
        return endpoint
    }
}
