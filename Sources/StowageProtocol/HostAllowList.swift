import Foundation

/// The origin hosts an operator allows Stowage to fetch from (`stowage-scheduler --allow-hosts`).
/// An entry is a host name or address (`cdn.example.com`, `10.0.0.5`) or a domain with every host
/// under it (`*.example.com`). Matching ignores case and the port. No list means every host.
public struct HostAllowList: Codable, Sendable, Equatable {
    public let entries: [String]

    public init(_ entries: [String]) {
        self.entries = entries.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// From a comma-separated option value.
    public init(parsing text: String) { self.init(text.split(separator: ",").map(String.init)) }

    /// Why a comma-separated value is no list of hosts (an entry with a scheme, a path, spaces inside, or a `*` not
    /// as `*.domain`), or nil: a mistyped entry would otherwise match nothing and refuse every title quietly.
    public static func problem(parsing text: String) -> String? {
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard entries.contains(where: { !$0.isEmpty }) else { return "names no host" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]_")
        for entry in entries where !entry.isEmpty {
            let name = entry.hasPrefix("*.") ? entry.dropFirst(2) : Substring(entry)
            guard !name.isEmpty, name.allSatisfy(allowed.contains) else {
                return "'\(entry.prefix(80))' is not a host name, an address or *.domain"
            }
        }
        return nil
    }

    public func allows(host: String) -> Bool {
        let h = host.lowercased()
        return entries.contains { entry in
            if entry.hasPrefix("*.") { return h.hasSuffix(String(entry.dropFirst(1))) }
            return h == entry
        }
    }

    /// nil when `url` may be fetched; otherwise why not, naming the URL.
    public func refusal(_ url: String) -> String? {
        guard let host = URL(string: url)?.host, !host.isEmpty else {
            return "\(URLRedaction.redacted(url).prefix(200)): no host in the URL"
        }
        return allows(host: host)
            ? nil
            : "\(URLRedaction.redacted(url).prefix(200)): host \(host) is not on the allow-list "
                + "(\(entries.joined(separator: ",")))"
    }
}
