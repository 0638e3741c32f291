/// How big a catalogue may be and how far its `version` may go (docs/catalogue.md). A box holds what its disk holds,
/// hundreds of titles, not a store's worth: a catalogue past these is refused whole, before it costs the scheduler's
/// loop anything but its bytes, and the one in force stays.
public enum CatalogLimits {
    /// The most bytes of a catalogue document (2 MiB: 2,000 entries of 1 KiB).
    public static let maxBytes = 2 << 20
    /// The most titles a catalogue lists.
    public static let maxEntries = 2_000
    /// The most bytes of a detached signature (its base64 text and a line end, with room to spare).
    public static let maxSignatureBytes = 4 << 10
    /// The highest `version`: 2^53, the largest integer every JSON reader (a JavaScript publisher's too) keeps exact.
    public static let maxVersion = 1 << 53
    /// The most one catalogue may raise `version` above the one in force (2^32: room for a date or Unix seconds as
    /// the version, while a signed catalogue cannot jump to the ceiling and shut out every later one).
    public static let maxVersionStep = 1 << 32

    /// Why `version` is refused after `inForce` (nil: none in force), or nil.
    public static func versionProblem(_ version: Int, after inForce: Int?) -> String? {
        guard version >= 0, version <= maxVersion else {
            return "version \(version) is outside 0 … \(maxVersion) (2^53)"
        }
        if let inForce, version > inForce, version - inForce > maxVersionStep {
            return "version \(version) is more than \(maxVersionStep) (2^32) above version \(inForce) in force"
        }
        return nil
    }
}
