import StowageProtocol

extension SegmentEncryption {
    /// How one media segment is encrypted: its key's URL and its IV.
    public struct Keying: Sendable, Equatable {
        /// Absolute http(s) URL (or an inline `data:` URI) of the 16-byte key.
        public var keyURI: String
        /// The IV the MPD gives; nil = derived from `number`.
        public var iv: [UInt8]?
        /// The segment's number (`$Number$`; its position from 1 when the addressing does not number segments).
        public var number: UInt64

        public init(keyURI: String, iv: [UInt8]?, number: UInt64) {
            self.keyURI = keyURI
            self.iv = iv
            self.number = number
        }

        /// The IV the segment is decrypted with.
        public var effectiveIV: [UInt8] { iv ?? SegmentEncryption.iv(number: number) }
    }

    /// The keying of each of `segments` (a Representation's, in order); nil for a segment no crypto period covers,
    /// which is clear. Crypto periods count segments from the first; a key URL is resolved against the
    /// Representation's first BaseURL.
    public func keyings(_ segments: [MediaSegment], representation: Representation) throws(DASHError) -> [Keying?] {
        var result = [Keying?](repeating: nil, count: segments.count)
        let total = segments.count
        var position = 0
        for period in periods {
            position += Int(min(period.offset, UInt64(total - position)))
            var runs: UInt64 = 0
            while runs < period.count, position < total {
                let length = Int(min(period.numSegments ?? UInt64(total), UInt64(total - position)))
                let first = segments[position].number ?? UInt64(position + 1)
                let uri = try Self.keyURI(period.keyUriTemplate, number: first, representation: representation)
                for index in position..<position + length {
                    result[index] = Keying(
                        keyURI: uri, iv: period.iv, number: segments[index].number ?? UInt64(index + 1))
                }
                position += length
                runs += 1
            }
        }
        return result
    }

    /// `template` with `$Number$` (the run's first segment), `$RepresentationID$` and `$Bandwidth$` substituted,
    /// resolved against the Representation's BaseURL; a `data:` URI is kept as written (the key is inline).
    static func keyURI(_ template: String, number: UInt64, representation: Representation) throws(DASHError)
        -> String
    {
        let values = URLTemplate.Values(
            representationID: representation.id, bandwidth: representation.bandwidth, number: number)
        let expanded = try URLTemplate.expand(template, values, attribute: "keyUriTemplate")
        if DataURI.isDataURI(expanded) { return expanded }
        return try BaseURLResolver.resolve(
            expanded, against: representation.baseURLs.first ?? "", element: "sea:CryptoPeriod@keyUriTemplate")
    }

    /// The crypto periods of the offline copy, whose segments are numbered from 1 in order: one per run of
    /// segments sharing a key and an IV rule, the key named by `keyPath`. A run keeps deriving its IVs from
    /// segment numbers only where the local number is the source's; elsewhere each segment gets its IV written out.
    public static func local(_ keyings: [Keying?], keyPath: (String) -> String) -> SegmentEncryption {
        var periods: [CryptoPeriod] = []
        var offset: UInt64 = 0
        var index = 0
        while index < keyings.count {
            guard let first = keyings[index] else {
                offset += 1
                index += 1
                continue
            }
            let derivedHere = first.iv == nil && first.number == UInt64(index + 1)
            let iv = derivedHere ? nil : first.effectiveIV
            var end = index + 1
            while end < keyings.count, let next = keyings[end], next.keyURI == first.keyURI {
                let same =
                    first.iv != nil
                    ? next.iv == first.iv : derivedHere && next.iv == nil && next.number == UInt64(end + 1)
                guard same else { break }
                end += 1
            }
            periods.append(
                CryptoPeriod(
                    offset: offset, numSegments: UInt64(end - index), keyUriTemplate: keyPath(first.keyURI), iv: iv))
            offset = 0
            index = end
        }
        return SegmentEncryption(periods: periods)
    }
}
