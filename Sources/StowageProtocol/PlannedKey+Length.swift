extension PlannedKey {
    /// The content key's length in bytes for an `EXT-X-KEY` METHOD: 32 for rfc8216bis's AES-256 and
    /// AES-256-CTR, 16 for AES-128, SAMPLE-AES and SAMPLE-AES-CTR (and Clear Key, whose keys are AES-128).
    /// The license worker and the scheduler check every key against it before it is wrapped.
    public static func keyLength(method: String) -> Int {
        method.uppercased().hasPrefix("AES-256") ? 32 : 16
    }

    /// This key's length in bytes (see ``keyLength(method:)``).
    public var keyLength: Int { Self.keyLength(method: method) }
}

extension PlannedKey {
    /// Where offline playlists and MPDs name key `n` (its position in ``ResolvedPlan/keys``): `/keys/n`, served by
    /// `stowctl play` (and under the title's path by the gateway) only while the license allows.
    public static func localPath(_ n: Int) -> String { "/keys/\(n)" }
}
