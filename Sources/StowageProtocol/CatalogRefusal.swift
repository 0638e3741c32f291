/// Why a catalogue was refused whole (the box keeps the last good one).
public struct CatalogRefusal: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Codable, Sendable {
        /// Keys are configured and no signature came with it.
        case unsigned
        /// The signature does not match the bytes under any configured key.
        case badSignature = "bad-signature"
        /// Not a catalogue (JSON, fields, ids, URLs).
        case malformed
        /// Its version is not above the one in force.
        case olderVersion = "older-version"
        /// It could not be fetched or read.
        case unreachable
        /// Past `CatalogLimits.maxBytes` or `CatalogLimits.maxEntries` (StowageCatalog).
        case tooLarge = "too-large"
        /// Its `version` is past the ceiling, or jumps too far above the one in force (StowageCatalog's limits).
        case badVersion = "bad-version"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
