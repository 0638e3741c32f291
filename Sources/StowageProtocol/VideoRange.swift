import Foundation

/// The dynamic range a video is made for (`--video-range`): a display that shows only SDR washes out PQ (HDR10,
/// Dolby Vision) and HLG pictures, so a device can ask for the range it shows. HLS names it in `VIDEO-RANGE`
/// (absent = SDR, RFC 8216bis); DASH in the CICP transfer characteristics descriptor (16 = PQ, 18 = HLG, other or
/// absent = SDR).
public enum VideoRange: String, Codable, Sendable, CaseIterable {
    case sdr, hlg, pq

    /// The scheme of DASH's transfer characteristics descriptor (`EssentialProperty`, `SupplementalProperty`).
    public static let transferCharacteristicsScheme = "urn:mpeg:mpegB:cicp:TransferCharacteristics"

    /// From an HLS `VIDEO-RANGE` value; absent or unknown is SDR.
    public init(hls value: String?) {
        switch value?.uppercased() {
        case "PQ": self = .pq
        case "HLG": self = .hlg
        default: self = .sdr
        }
    }

    /// From a CICP `TransferCharacteristics` code point (ISO/IEC 23091-2): 16 is PQ, 18 is HLG.
    public init(transferCharacteristics: Int?) {
        switch transferCharacteristics {
        case 16: self = .pq
        case 18: self = .hlg
        default: self = .sdr
        }
    }

    /// Parses `--video-range` (or a catalogue's `videoRange`).
    public static func parse(_ text: String, option: String) throws(SelectionError) -> VideoRange {
        guard let range = VideoRange(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw SelectionError(option, "'\(text.prefix(40))' is not one of sdr, hlg, pq")
        }
        return range
    }
}
