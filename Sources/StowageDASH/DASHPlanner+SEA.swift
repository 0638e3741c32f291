import StowageProtocol

extension DASHPlanner {
    /// The segment-encryption keys of a plan, each URL once, in the order met: key `n` is `/keys/n` offline.
    struct SegmentKeys {
        var keys: [PlannedKey] = []
        private var positions: [String: Int] = [:]

        /// The local path of the key at `uri`, planned on first use as an HLS AES-128 key is (a plain GET of the
        /// URL by the license worker, or read inline from a `data:` URI).
        mutating func path(_ uri: String) -> String { PlannedKey.localPath(position(uri)) }

        /// The position of the key at `uri` in the plan's keys, planned on first use.
        mutating func position(_ uri: String) -> Int {
            if let n = positions[uri] { return n }
            positions[uri] = keys.count
            keys.append(PlannedKey(uri: uri, method: "AES-128"))
            return keys.count - 1
        }
    }

    /// How each media segment of `track` is encrypted, when its Representation signals segment encryption.
    static func segmentKeyings(_ track: LocalTrack) throws(DASHError) -> [SegmentEncryption.Keying?]? {
        guard let sea = track.representation.contentProtections.lazy.compactMap(\.segmentEncryption).first else {
            return nil
        }
        return try sea.keyings(track.segments.segments, representation: track.representation)
    }

    /// The ContentProtection elements of the offline copy: the segment-encryption one (if any) with its crypto
    /// periods renumbered for the local segments and its keys at `/keys/n`; the others as ``localized(_:)`` has
    /// them.
    static func localized(
        _ protections: [ContentProtection], keyings: [SegmentEncryption.Keying?]?, keys: inout SegmentKeys
    ) -> [ContentProtection] {
        var out: [ContentProtection] = []
        for protection in protections {
            guard protection.segmentEncryption != nil, let keyings else {
                out.append(localized(protection))
                continue
            }
            var local = protection
            local.segmentEncryption = SegmentEncryption.local(keyings) { keys.path($0) }
            out.append(local)
        }
        return out
    }
}
