import StowageProtocol

/// Reads what a device must decode from an AdaptationSet's or Representation's descriptors: the CICP transfer
/// characteristics (`--video-range`) and `AudioChannelConfiguration` (`--channels`). Schemes not understood give
/// nil (the selection then assumes SDR, or ``Selection/assumedChannels``).
enum DecodeDescriptors {
    /// The code point of `urn:mpeg:mpegB:cicp:TransferCharacteristics` in an `EssentialProperty` or
    /// `SupplementalProperty` child of `node`.
    static func transferCharacteristics(_ node: XMLNode) -> Int? {
        let properties = node.children("EssentialProperty") + node.children("SupplementalProperty")
        for p in properties where p.attribute("schemeIdUri") == VideoRange.transferCharacteristicsScheme {
            if let value = p.attribute("value").flatMap({ Int(Substring($0).trimmed) }), (0...255).contains(value) {
                return value
            }
        }
        return nil
    }

    /// The channel count of the first `AudioChannelConfiguration` child of `node` whose scheme is understood.
    static func audioChannels(_ node: XMLNode) -> Int? {
        for c in node.children("AudioChannelConfiguration") {
            guard let value = c.attribute("value").map({ String(Substring($0).trimmed) }),
                let scheme = c.attribute("schemeIdUri")
            else { continue }
            let count: Int? =
                switch scheme {
                case "urn:mpeg:dash:23003:3:audio_channel_configuration:2011": Int(value)
                case "urn:mpeg:mpegB:cicp:ChannelConfiguration": Int(value).flatMap { cicp[$0] }
                case "tag:dolby.com,2014:dash:audio_channel_configuration:2011",
                    "urn:dolby:dash:audio_channel_configuration:2011":
                    UInt16(value, radix: 16).map(dolbyChannels)
                default: nil
                }
            if let count, Selection.channelCount.range.contains(count) { return count }
        }
        return nil
    }

    /// ISO/IEC 23091-3 ChannelConfiguration → channels (1 mono, 2 stereo, 6 = 5.1, 12 = 7.1 …).
    static let cicp: [Int: Int] = [
        1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 8, 9: 3, 10: 4, 11: 7, 12: 8, 13: 24, 14: 8, 15: 12, 16: 10, 17: 12,
        18: 14, 19: 12, 20: 14,
    ]

    /// Dolby's 16-bit channel mask (ETSI TS 102 366 Annex I, most significant bit first): some bits name a pair
    /// of speakers. `F801` (L C R Ls Rs LFE) is 6, `A000` (L R) is 2.
    static func dolbyChannels(_ mask: UInt16) -> Int {
        let pairs: Set<Int> = [10, 9, 6, 5, 4, 2]  // bit numbers (15 = MSB) that stand for two speakers
        return (0..<16).reduce(0) { n, bit in mask & (1 << bit) == 0 ? n : n + (pairs.contains(bit) ? 2 : 1) }
    }
}
