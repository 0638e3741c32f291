import Foundation
import StowageRuntime

/// Who this scheduler is in the leader row: a holder id no other process shares (host name, pid and a random
/// part, so a restarted process on the same pid is another holder), and the endpoints clients reach it at (its
/// `--bind` tcp endpoints with a wildcard host replaced by the host name; a scheduler bound to ipc only: its ipc
/// endpoint, reachable on its own host only).
package struct LeaderIdentity {
    package let holder: String
    package let endpoints: [String]
    private let hostName: String

    package init(binds: [String], home: StowageHome, hostName: String = ProcessInfo.processInfo.hostName) {
        self.hostName = hostName
        holder = "\(hostName)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        let tcp = binds.filter { $0.hasPrefix("tcp://") }.map { Self.reachable($0, hostName: hostName) }
        endpoints = tcp.isEmpty ? [home.defaultEndpoint] : tcp
    }

    /// `tcp://0.0.0.0:7700`, `tcp://*:7700`, `tcp://[::]:7700` → `tcp://HOST:7700`; any other endpoint as it is.
    package static func reachable(_ endpoint: String, hostName: String) -> String {
        let rest = endpoint.dropFirst("tcp://".count)
        for wildcard in ["0.0.0.0:", "*:", "[::]:"] where rest.hasPrefix(wildcard) {
            return "tcp://\(hostName):\(rest.dropFirst(wildcard.count))"
        }
        return endpoint
    }

    /// Whether `holder` is a scheduler of this host whose process no longer runs (killed, crashed): its lease can be
    /// taken at once instead of after it runs out, so a scheduler restarted after `kill -9` leads again at once, as
    /// it served at once before leadership. Anything else (another host, a live pid, a name not ours to read) waits
    /// for the lease. A pid reused since only makes us wait.
    package func isGone(_ holder: String) -> Bool {
        let parts = holder.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid > 0, pid != getpid() else { return false }
        guard parts.dropLast(2).joined(separator: "-") == hostName else { return false }
        return kill(pid, 0) == -1 && errno == ESRCH
    }
}
