import Foundation

/// A text track in fragmented MP4 (ISO/IEC 14496-30): its init section's timescale and sample entry, and the
/// samples of its fragments with their times. Sample times are the fragment's `tfdt` plus the `trun` durations
/// before it (or the `tfhd`/`trex` default duration), in the `mdhd` timescale, so a cue is placed exactly where
/// the packager put it.
public struct FragmentedTextTrack: Sendable {
    /// The sample entry's format.
    public enum Format: String, Sendable {
        /// WebVTT in MP4: `vttc` cues (`payl`, `sttg`, `iden`), `vtte` empty samples.
        case wvtt
        /// TTML in MP4: one TTML document a sample.
        case stpp
    }

    /// One sample: when it starts, how long it lasts (seconds on the track's media timeline) and its bytes.
    public struct Sample: Sendable, Equatable {
        public var start: Double
        public var duration: Double
        public var bytes: [UInt8]
    }

    public var format: Format
    public var timescale: UInt32
    var defaultDuration: UInt32
    var defaultSize: UInt32

    /// Reads the init section's `moov` (the first one in `bytes`): the timescale from `mdhd`, the format from the
    /// first `stsd` entry and the `trex` defaults.
    public init(initSection bytes: [UInt8]) throws(SubtitleError) {
        guard let moov = try MP4Box.boxes(in: bytes, range: 0..<bytes.count).first(where: { $0.type == "moov" }),
            let trak = try moov.child("trak", bytes), let mdia = try trak.child("mdia", bytes),
            let mdhd = try mdia.child("mdhd", bytes)
        else { throw SubtitleError(.malformed, file: "", "no moov/trak/mdia/mdhd: this is no MP4 init section") }
        let (version, _) = try mdhd.versionAndFlags(bytes)
        timescale = try MP4Box.be32(bytes, mdhd.contentStart + (version == 1 ? 20 : 12), limit: mdhd.end)
        guard timescale > 0 else { throw SubtitleError(.malformed, file: "", "mdhd timescale is 0") }
        guard let minf = try mdia.child("minf", bytes), let stbl = try minf.child("stbl", bytes),
            let stsd = try stbl.child("stsd", bytes), let entry = try stsd.children(bytes, skip: 8).first
        else { throw SubtitleError(.malformed, file: "", "no sample description (minf/stbl/stsd)") }
        guard let format = Format(rawValue: entry.type) else {
            let hint = entry.type == "enct" ? " (encrypted text)" : ""
            throw SubtitleError(
                .unsupported, file: "", "sample entry '\(entry.type)'\(hint) is neither wvtt nor stpp")
        }
        self.format = format
        defaultDuration = 0
        defaultSize = 0
        if let mvex = try moov.child("mvex", bytes), let trex = try mvex.child("trex", bytes) {
            defaultDuration = try MP4Box.be32(bytes, trex.contentStart + 12, limit: trex.end)
            defaultSize = try MP4Box.be32(bytes, trex.contentStart + 16, limit: trex.end)
        }
    }

    /// The samples of every `moof` in `bytes` (a media segment, or a whole fragmented file), in order.
    public func samples(_ bytes: [UInt8]) throws(SubtitleError) -> [Sample] {
        var out: [Sample] = []
        for moof in try MP4Box.boxes(in: bytes, range: 0..<bytes.count) where moof.type == "moof" {
            for traf in try moof.children(bytes) where traf.type == "traf" {
                out += try samples(traf: traf, moof: moof, bytes)
            }
        }
        return out
    }

    private func samples(traf: MP4Box, moof: MP4Box, _ bytes: [UInt8]) throws(SubtitleError) -> [Sample] {
        let boxes = try traf.children(bytes)
        guard let tfhd = boxes.first(where: { $0.type == "tfhd" }) else {
            throw SubtitleError(.malformed, file: "", "a traf has no tfhd")
        }
        let (_, tfhdFlags) = try tfhd.versionAndFlags(bytes)
        var cursor = tfhd.contentStart + 8  // version/flags, track_ID
        var base = moof.start
        if tfhdFlags & 0x1 != 0 {
            base = Int(clamping: try MP4Box.be64(bytes, cursor, limit: tfhd.end))
            cursor += 8
        }
        if tfhdFlags & 0x2 != 0 { cursor += 4 }
        var duration = defaultDuration, size = defaultSize
        if tfhdFlags & 0x8 != 0 {
            duration = try MP4Box.be32(bytes, cursor, limit: tfhd.end)
            cursor += 4
        }
        if tfhdFlags & 0x10 != 0 { size = try MP4Box.be32(bytes, cursor, limit: tfhd.end) }
        guard let tfdt = boxes.first(where: { $0.type == "tfdt" }) else {
            throw SubtitleError(.malformed, file: "", "a traf has no tfdt (its samples' time is unknown)")
        }
        let (tfdtVersion, _) = try tfdt.versionAndFlags(bytes)
        var time =
            tfdtVersion == 1
            ? try MP4Box.be64(bytes, tfdt.contentStart + 4, limit: tfdt.end)
            : UInt64(try MP4Box.be32(bytes, tfdt.contentStart + 4, limit: tfdt.end))
        var out: [Sample] = []
        for trun in boxes where trun.type == "trun" {
            let (version, flags) = try trun.versionAndFlags(bytes)
            let count = try MP4Box.be32(bytes, trun.contentStart + 4, limit: trun.end)
            var field = trun.contentStart + 8
            var dataOffset = base
            if flags & 0x1 != 0 {
                dataOffset = base + Int(Int32(bitPattern: try MP4Box.be32(bytes, field, limit: trun.end)))
                field += 4
            }
            if flags & 0x4 != 0 { field += 4 }
            let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count * 4
            guard Int(count) <= (trun.end - field) / max(perSample, 1) || perSample == 0, count <= 1_000_000 else {
                throw SubtitleError(
                    .malformed, file: "", "trun claims \(count) samples in \(trun.end - trun.start) bytes")
            }
            for _ in 0..<count {
                var sampleDuration = duration, sampleSize = size, offset: Int64 = 0
                if flags & 0x100 != 0 {
                    sampleDuration = try MP4Box.be32(bytes, field, limit: trun.end)
                    field += 4
                }
                if flags & 0x200 != 0 {
                    sampleSize = try MP4Box.be32(bytes, field, limit: trun.end)
                    field += 4
                }
                if flags & 0x400 != 0 { field += 4 }
                if flags & 0x800 != 0 {
                    let raw = try MP4Box.be32(bytes, field, limit: trun.end)
                    offset = version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
                    field += 4
                }
                let end = dataOffset + Int(sampleSize)
                guard dataOffset >= 0, end <= bytes.count else {
                    throw SubtitleError(
                        .malformed, file: "",
                        "a sample at byte \(dataOffset) of \(sampleSize) bytes runs past the file (\(bytes.count))")
                }
                let start = (Double(time) + Double(offset)) / Double(timescale)
                out.append(
                    Sample(
                        start: start, duration: Double(sampleDuration) / Double(timescale),
                        bytes: Array(bytes[dataOffset..<end])))
                dataOffset = end
                time += UInt64(sampleDuration)
            }
        }
        return out
    }
}
