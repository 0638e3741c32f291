@preconcurrency import Crypto
import Foundation
import StowageLicensing
import StowageProtocol

/// What `bundle.json` says: everything another box needs to take a title in without the origin — the plan, every
/// file with its size and SHA-256, the license terms and usage so far, where the title came from, how it is
/// protected, and (only for a named box) its content keys wrapped for that box. The exporting box signs the exact
/// bytes of this file (see ``BundleSignature``), so nothing in it can change on the way.
public struct BundleManifest: Codable, Sendable, Equatable {
    /// The format this box writes; an importer refuses a newer one rather than guess at fields it does not know.
    /// Format 2 added `exportID` and bound the sealed keys to the terms (``keyBinding()``).
    public static let currentFormat = 2
    /// The oldest format this box reads. Format 1 is refused: its sealed keys are bound to the token and the key's
    /// name only, so terms rewritten and re-signed with any key (`--trust-any`) would still open them.
    public static let oldestFormat = 2

    public var format: Int
    /// The exporting box: its id and public keys (the signature is checked against `box.signingKey`).
    public var box: BoxPublicKey
    /// When the bundle was written (seconds since 1970), for a person reading it.
    public var exportedAt: Double
    public var title: Title
    /// The offline plan as the exporting box stored it.
    public var plan: ResolvedPlan
    /// Every file of the offline copy, relative to the bundle folder, in plan order then playlists.
    public var files: [File]
    /// License terms as exported: an absolute expiry stays absolute; `usage` carries plays already made.
    public var terms: LicenseTerms?
    public var usage: LicenseUsage?
    /// How the media is protected (nil when clear).
    public var protection: TitleProtection?
    /// The content keys wrapped for one box (`--for-box`); nil when no key left the exporting box.
    public var keys: WrappedKeys?
    /// `--move`: the exporting box gave up its license, so the importing box holds the only playable copy.
    public var moved: Bool
    /// This export's id (16 random hex digits, fresh per export): a `--move` bundle is taken in once per box (the
    /// importing box remembers it), and the sealed keys are bound to it. Optional only so that an older format
    /// decodes far enough to be refused by name.
    public var exportID: String?

    /// The title as the exporting box knew it.
    public struct Title: Codable, Sendable, Equatable {
        /// The stable id (`submit --id`) if it had one, else nil.
        public var id: String?
        /// The exporting box's token; the importing box keeps it unless it is already taken there.
        public var token: String
        /// The source URL the title was downloaded from (the origin, for a later renewal online).
        public var sourceURL: String
        public var displayName: String?

        public init(id: String?, token: String, sourceURL: String, displayName: String? = nil) {
            self.id = id
            self.token = token
            self.sourceURL = sourceURL
            self.displayName = displayName
        }
    }

    /// One file: where it sits under the bundle folder, its size and its SHA-256 (lowercase hex).
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var size: Int64
        public var sha256: String

        public init(path: String, size: Int64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    public init(
        box: BoxPublicKey, exportedAt: Double, title: Title, plan: ResolvedPlan, files: [File],
        terms: LicenseTerms? = nil, usage: LicenseUsage? = nil, protection: TitleProtection? = nil,
        keys: WrappedKeys? = nil, moved: Bool = false, exportID: String? = nil,
        format: Int = BundleManifest.currentFormat
    ) {
        self.format = format
        self.box = box
        self.exportedAt = exportedAt
        self.title = title
        self.plan = plan
        self.files = files
        self.terms = terms
        self.usage = usage
        self.protection = protection
        self.keys = keys
        self.moved = moved
        self.exportID = exportID
    }

    /// The bytes written as `bundle.json`: sorted keys, so the same manifest always signs the same bytes.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads `bundle.json` bytes; a malformed file or a newer format is a ``BundleProblem`` naming `bundle.json`.
    public static func decode(_ data: Data) throws(BundleProblem) -> BundleManifest {
        let manifest: BundleManifest
        do {
            manifest = try JSONDecoder().decode(BundleManifest.self, from: data)
        } catch {
            throw BundleProblem(.malformed, file: BundleLayout.manifestName, "is not a bundle manifest: \(error)")
        }
        guard manifest.format <= currentFormat else {
            throw BundleProblem(
                .malformed, file: BundleLayout.manifestName,
                "is format \(manifest.format); this box reads up to \(currentFormat): update Stowage")
        }
        guard manifest.format >= oldestFormat else {
            throw BundleProblem(
                .malformed, file: BundleLayout.manifestName,
                "is format \(manifest.format), whose keys are not bound to its terms; this box reads format "
                    + "\(oldestFormat) and later: export the title again with a current Stowage")
        }
        guard let id = manifest.exportID, isPlainID(id) else {
            throw BundleProblem(
                .malformed, file: BundleLayout.manifestName, "has no exportID of 16 to 64 lowercase hex digits")
        }
        guard isPlainID(manifest.title.token) else {
            throw BundleProblem(
                .malformed, file: BundleLayout.manifestName, "names a title.token that is not 16 to 64 hex digits")
        }
        return manifest
    }

    /// An export id or token as this box makes them: lowercase hex, 16 to 64 digits.
    static func isPlainID(_ text: String) -> Bool {
        (16...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// What the sealed keys are bound to (their AEAD associated data, see ``WrappedKeys``): the SHA-256 of the
    /// export id, the exporting token, the terms, the plays so far and `moved`, encoded with sorted keys. Terms
    /// rewritten (a rental made a purchase), plays reset or the bundle re-signed as another export leave keys that
    /// do not open. Computed from the decoded values on both sides, so it never depends on the file's spacing.
    public func keyBinding() -> Data {
        struct Bound: Encodable {
            var exportID: String?
            var token: String
            var terms: LicenseTerms?
            var usage: LicenseUsage?
            var moved: Bool
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bound = Bound(exportID: exportID, token: title.token, terms: terms, usage: usage, moved: moved)
        let bytes = (try? encoder.encode(bound)) ?? Data()
        return Data(SHA256.hash(data: bytes))
    }
}
