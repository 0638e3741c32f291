import Crypto
import Foundation
import StowageProtocol

/// Whether a catalogue that arrived may replace the one in force: the one rule for every source (a URL, a
/// file, `stowctl catalog apply`). Refused whole when too large (``CatalogLimits``), unsigned while keys are
/// configured, badly signed, malformed, too many titles, not newer or its version out of bounds; the box then keeps
/// the last good one.
public struct CatalogGate: Sendable {
    /// The keys a signature must match; none: an unsigned catalogue is accepted (a local file, logged).
    /// (Kept raw: swift-crypto's key type is not `Sendable`.)
    private var keys: [Data]

    public init(keys: [Curve25519.Signing.PublicKey]) { self.keys = keys.map(\.rawRepresentation) }

    /// The keys of `--catalog-key` files' contents (see ``CatalogSignature/publicKey(from:)``).
    public init(keyFiles: [Data]) throws(CatalogKeyError) {
        var keys: [Data] = []
        for contents in keyFiles { keys.append(try CatalogSignature.publicKey(from: contents).rawRepresentation) }
        self.keys = keys
    }

    /// Whether a signature is required (keys are configured).
    public var requiresSignature: Bool { !keys.isEmpty }

    /// What to do with a catalogue that arrived.
    public enum Verdict: Sendable, Equatable {
        /// A newer catalogue: apply it (`digest` identifies its bytes).
        case apply(Catalog, digest: String)
        /// The very bytes in force again (a poll without ETag support, a restart): nothing to do.
        case unchanged
    }

    /// Checks `bytes` (with its detached `signature`) against the catalogue in force (`version`, `digest`).
    public func admit(_ bytes: Data, signature: Data?, inForce: (version: Int, digest: String)?) throws(CatalogRefusal)
        -> Verdict
    {
        guard bytes.count <= CatalogLimits.maxBytes else {
            throw CatalogRefusal(
                .tooLarge, "the catalogue is \(bytes.count) bytes; at most \(CatalogLimits.maxBytes) are accepted")
        }
        if !keys.isEmpty {
            guard let signature else {
                throw CatalogRefusal(
                    .unsigned, "no signature came with the catalogue, and --catalog-key requires one (its .sig)")
            }
            guard
                CatalogSignature.verify(
                    bytes, signature: signature,
                    keys: keys.compactMap { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) })
            else {
                throw CatalogRefusal(
                    .badSignature, "the signature does not match the catalogue's bytes under any --catalog-key")
            }
        }
        let digest = Hex.encode(SHA256.hash(data: bytes))
        if let inForce, inForce.digest == digest { return .unchanged }
        let catalog = try Catalog.decode(bytes)
        if let problem = CatalogLimits.versionProblem(catalog.version, after: inForce?.version) {
            throw CatalogRefusal(.badVersion, "field 'version': \(problem)")
        }
        if let inForce, catalog.version <= inForce.version {
            throw CatalogRefusal(
                .olderVersion,
                "version \(catalog.version) is not above version \(inForce.version) in force (version must grow)")
        }
        return .apply(catalog, digest: digest)
    }
}
