import Foundation

/// The schedulers a client or worker may reach: `--scheduler` / `STOWAGE_SCHEDULER`, one endpoint or several
/// separated by commas (`tcp://a:7700,tcp://b:7700`: the schedulers of a farm, one of which leads). The one rule for
/// reading that text, for workers, `stowctl` and the gateway alike.
///
/// Every scheduler of a farm has the same CURVE key pair, so one `--curve-server-key` applies to every endpoint.
public enum SchedulerEndpoints {
    /// The endpoints `text` names, in its order; throws ``SchedulerEndpointsError`` naming the item at fault: an
    /// empty item, one named twice, or one that is not `ipc://PATH` or `tcp://HOST:PORT`.
    public static func parse(_ text: String) throws(SchedulerEndpointsError) -> [String] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0).trimmingCharacters(in: .whitespaces)
        }
        var seen: Set<String> = []
        for (index, item) in items.enumerated() {
            if item.isEmpty {
                throw SchedulerEndpointsError("item \(index + 1) of '\(text.prefix(200))' is empty")
            }
            if let problem = problem(endpoint: item) {
                throw SchedulerEndpointsError("'\(item.prefix(200))' \(problem)")
            }
            guard seen.insert(item).inserted else {
                throw SchedulerEndpointsError("'\(item.prefix(200))' is named twice")
            }
        }
        return items
    }

    /// Why `text` is not one ZeroMQ endpoint Stowage speaks (`ipc://PATH` or `tcp://HOST:PORT`, `*` as HOST for a
    /// bind), or nil.
    public static func problem(endpoint text: String) -> String? {
        let wanted = "is not an endpoint: write ipc://PATH or tcp://HOST:PORT"
        if text.hasPrefix("ipc://") { return text.count > 6 ? nil : wanted }
        guard text.hasPrefix("tcp://") else { return wanted }
        let rest = text.dropFirst(6)
        guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex,
            let port = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(port)
        else { return wanted }
        return nil
    }
}

/// A `--scheduler` list that cannot be read: which item, and why. A usage error where options are checked.
public struct SchedulerEndpointsError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
