import Foundation
import StowageProtocol

/// What the box knows of its catalogue, stored whole (so a restart without network still knows it): the last
/// good catalogue, where it came from, the last fetch and why it failed, and the titles the catalogue added.
/// Only the titles listed in ``members`` are ever removed by the catalogue; hand-submitted ones are the operator's.
public struct CatalogBook: Codable, Sendable, Equatable {
    /// The last good catalogue (nil: none yet) and the SHA-256 of its bytes.
    public var catalog: Catalog?
    public var digest: String?
    /// `--catalog`'s URL or file, or `apply`.
    public var source: String?
    /// Wall-clock seconds.
    public var appliedAt: Double?
    public var lastFetchAt: Double?
    /// Why the last catalogue that arrived was refused or could not be fetched (nil: it was good).
    public var lastError: CatalogRefusal?
    /// The titles the catalogue added.
    public var members: [CatalogMember] = []

    public init() {}

    /// The titles leaving the box: no longer listed (deleted after `--catalog-grace`) or replaced by a new copy.
    /// Under a `--quota` they are evicted first.
    public var leavingTokens: Set<String> {
        Set(members.filter { $0.role == .leaving || $0.removeAt != nil }.map(\.token))
    }

    /// The titles the catalogue in force pins (`pinned: true`): the copy devices get for the id and one coming to
    /// replace it, never a copy leaving the box.
    public var pinnedTokens: Set<String> {
        let ids = Set((catalog?.titles ?? []).filter { $0.pinned == true }.map(\.id))
        let leaving = leavingTokens
        return Set(members.filter { !leaving.contains($0.token) && ids.contains($0.id) }.map(\.token))
    }

    /// The version and digest in force, for ``CatalogGate``.
    public var inForce: (version: Int, digest: String)? {
        guard let catalog, let digest else { return nil }
        return (catalog.version, digest)
    }

    /// A catalogue was accepted: its members take their entries' `keepUntil` (one no longer listed keeps the last).
    public mutating func accepted(_ catalog: Catalog, digest: String, source: String, now: Double) {
        let keep = Dictionary(catalog.titles.map { ($0.id, $0.keepUntilSeconds) }, uniquingKeysWith: { a, _ in a })
        for i in members.indices where keep[members[i].id] != nil { members[i].keepUntil = keep[members[i].id] ?? nil }
        self.catalog = catalog
        self.digest = digest
        self.source = source
        appliedAt = now
        lastFetchAt = now
        lastError = nil
    }

    /// A catalogue arrived and was refused, or could not be fetched: the one in force stays.
    public mutating func refused(_ refusal: CatalogRefusal, now: Double) {
        lastFetchAt = now
        lastError = refusal
    }

    /// The same catalogue again (or 304 Not Modified).
    public mutating func confirmed(now: Double) {
        lastFetchAt = now
        lastError = nil
    }

    /// The service added a title for the catalogue (kept as long as its entry says).
    public mutating func added(_ member: CatalogMember) {
        var member = member
        member.keepUntil = catalog?.titles.first { $0.id == member.id }?.keepUntilSeconds
        members.append(member)
    }

    /// Titles that no longer exist (deleted by the operator, or by the catalogue) are forgotten.
    public mutating func keepOnly(tokens: Set<String>) { members.removeAll { !tokens.contains($0.token) } }

    /// Records an effect the reconciler decided (the service carries out the rest).
    public mutating func record(_ effect: CatalogReconciler.Effect, now: Double) {
        switch effect {
        case .submit, .submitReplacement:
            break  // ``added(_:)`` once the title exists
        case .swap(_, let old, let new):
            update(old) {
                $0.role = .leaving
                $0.removeAt = now
            }
            update(new) { $0.role = .current }
        case .scheduleRemoval(let token, let at):
            update(token) { $0.removeAt = at }
        case .keep(let token):
            update(token) { $0.removeAt = nil }
        case .delete(let token):
            members.removeAll { $0.token == token }
        }
    }

    private mutating func update(_ token: String, _ change: (inout CatalogMember) -> Void) {
        if let i = members.firstIndex(where: { $0.token == token }) { change(&members[i]) }
    }
}

/// A title the catalogue added.
public struct CatalogMember: Codable, Sendable, Equatable {
    public enum Role: String, Codable, Sendable {
        /// The copy devices get for the id.
        case current
        /// A new copy being downloaded to replace the current one (its url or selection changed).
        case incoming
        /// A replaced copy, deleted once no device plays it.
        case leaving
    }

    public var token: String
    public var id: String
    /// What it was downloaded from, to notice a change.
    public var url: String
    public var selection: Selection
    /// Its entry's clip (`range`), to notice a change; nil for a whole title.
    public var range: ClipRange?
    public var role: Role
    /// When it is deleted (wall clock), if it is leaving the box.
    public var removeAt: Double?
    /// Its entry's `keepUntil` (wall clock): the quota does not evict it before, nor the catalogue remove it.
    public var keepUntil: Double?

    public init(
        token: String, id: String, url: String, selection: Selection, range: ClipRange? = nil, role: Role,
        removeAt: Double? = nil
    ) {
        self.token = token
        self.id = id
        self.url = url
        self.selection = selection
        self.range = range
        self.role = role
        self.removeAt = removeAt
    }
}

extension CatalogEntry {
    /// `keepUntil` as wall-clock seconds (nil: none, or not an ISO 8601 time).
    public var keepUntilSeconds: Double? {
        keepUntil.flatMap { ISO8601DateFormatter().date(from: $0)?.timeIntervalSince1970 }
    }
}
