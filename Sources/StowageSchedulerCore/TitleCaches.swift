import StowageProtocol

/// What every task of a title needs and never changes once known, read from the store once: its request
/// headers (decoded) and its ``FetchScope`` (the peer component keeps the peer box it fills from). Bounded:
/// cleared wholesale past 10,000 titles.
public struct TitleCaches: Sendable, TitleScoped {
    private var headers: [String: [Header]] = [:]
    private var scopes: [String: FetchScope] = [:]

    public init() {}

    /// The title's headers, read by `load` the first time.
    public mutating func headers(_ token: String, load: () throws -> [Header]?) rethrows -> [Header]? {
        if let cached = headers[token] { return cached }
        guard let loaded = try load() else { return nil }
        if headers.count > 10_000 { headers.removeAll() }
        headers[token] = loaded
        return loaded
    }

    /// The title's fetch scope, built by `load` the first time.
    public mutating func scope(_ token: String, load: () throws -> FetchScope?) rethrows -> FetchScope? {
        if let cached = scopes[token] { return cached }
        guard let loaded = try load() else { return nil }
        if scopes.count > 10_000 { scopes.removeAll() }
        scopes[token] = loaded
        return loaded
    }

    /// The title's scope changed (its reach was found): built again when next needed.
    public mutating func scopeChanged(_ token: String) { scopes[token] = nil }

    public mutating func forget(_ token: String) {
        headers[token] = nil
        scopes[token] = nil
    }
}
