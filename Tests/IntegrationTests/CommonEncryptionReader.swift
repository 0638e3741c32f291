import Crypto
import Foundation
import Testing
import _CryptoExtras

/// The test's own Common Encryption reader (ISO/IEC 23001-7), for titles ffmpeg 5.1's HLS reader cannot decrypt
/// (SAMPLE-AES-CTR) or might decrypt wrongly unnoticed: it turns one encrypted fMP4 track (an init section and its
/// media segments, one track per file as Shaka Packager writes them) into clear fMP4 that ffmpeg decodes without a
/// key. The init section's sample entry gets its original format back (`frma`) and `sinf` becomes `free`; in each
/// segment every sample's protected bytes are decrypted in place, and `senc`, `saiz`, `saio` become `free` (box
/// sizes never change, so every offset stays right). `cenc`: AES-128-CTR from the sample's IV, the counter running
/// on across the sample's protected ranges. `cbcs`: AES-128-CBC restarted with the IV (the constant IV of `tenc`
/// when there is one) at each protected range, `crypt:skip` blocks by the `tenc` pattern, a partial last block
/// clear.
enum CommonEncryptionReader {
    typealias Box = CENCPackager.Box

    /// What `tenc` and `schm` say of a protected track.
    struct Track: Equatable {
        var scheme: String
        var ivSize: Int
        var constantIV: [UInt8]?
        var crypt: Int
        var skip: Int
    }

    static let sampleEntryHeads = ["encv": 78, "enca": 28]

    /// The clear init section and what its protected track says. Exactly one track must be protected.
    static func clearInit(_ bytes: [UInt8]) throws -> (bytes: [UInt8], track: Track) {
        let boxes = try CENCPackager.parse(bytes[...])
        var found: Track?
        for trak in boxes.first(where: { $0.type == "moov" })?.children ?? [] where trak.type == "trak" {
            guard let stsd = trak.child("mdia")?.child("minf")?.child("stbl")?.child("stsd") else { continue }
            for entry in stsd.children ?? [] {
                guard let head = sampleEntryHeads[entry.type], entry.children == nil, entry.head.count >= head
                else { continue }
                let children = try CENCPackager.parse(entry.head[head...])
                let sinf = children.first { $0.type == "sinf" }
                let parts = try sinf.map { try CENCPackager.parse($0.head[...]) } ?? []
                guard let sinf, let frma = parts.first(where: { $0.type == "frma" }), frma.head.count == 4,
                    let schm = parts.first(where: { $0.type == "schm" }), schm.head.count >= 8,
                    let schi = parts.first(where: { $0.type == "schi" }),
                    let tenc = try CENCPackager.parse(schi.head[...]).first(where: { $0.type == "tenc" })
                else { throw CENCPackager.Failure("\(entry.type) without frma/schm/schi/tenc") }
                found = try track(scheme: String(decoding: schm.head[4..<8], as: UTF8.self), tenc: tenc.head)
                sinf.type = "free"
                entry.type = String(decoding: frma.head, as: UTF8.self)
                entry.head = Array(entry.head[..<head])
                entry.children = children
            }
        }
        guard let found else { throw CENCPackager.Failure("no encv/enca sample entry: the track is not protected") }
        let out = boxes.flatMap(\.bytes)
        guard out.count == bytes.count else { throw CENCPackager.Failure("the init section changed size") }
        return (out, found)
    }

    static func track(scheme: String, tenc: [UInt8]) throws -> Track {
        guard tenc.count >= 24, tenc[6] == 1 else { throw CENCPackager.Failure("tenc: not protected by default") }
        let version = tenc[0]
        let ivSize = Int(tenc[7])
        var constant: [UInt8]?
        if ivSize == 0 {
            guard tenc.count >= 25, tenc.count >= 25 + Int(tenc[24]) else { throw CENCPackager.Failure("tenc IV") }
            constant = Array(tenc[25..<25 + Int(tenc[24])])
        }
        let pattern = version == 0 ? 0 : Int(tenc[5])
        return Track(scheme: scheme, ivSize: ivSize, constantIV: constant, crypt: pattern >> 4, skip: pattern & 0xF)
    }

    /// One media segment decrypted with `key`.
    static func clearSegment(_ bytes: [UInt8], track: Track, key: [UInt8]) throws -> [UInt8] {
        var data = bytes
        var offset = 0
        for box in try CENCPackager.parse(bytes[...]) {
            defer { offset += box.size }
            guard box.type == "moof" else { continue }
            for traf in box.children ?? [] where traf.type == "traf" {
                try decrypt(traf, moofOffset: offset, in: &data, track: track, key: key)
                for child in traf.children ?? [] where ["senc", "saiz", "saio"].contains(child.type) {
                    child.type = "free"
                }
            }
            data.replaceSubrange(offset..<offset + box.size, with: box.bytes)
        }
        return data
    }

    /// The samples of one `traf`: where each lies (from `tfhd` and `trun`, offsets from the `moof`) and its IV and
    /// protected ranges (from `senc`).
    static func decrypt(_ traf: Box, moofOffset: Int, in data: inout [UInt8], track: Track, key: [UInt8]) throws {
        guard let tfhd = traf.child("tfhd"), let trun = traf.child("trun"), let senc = traf.child("senc") else {
            throw CENCPackager.Failure("traf lacks tfhd/trun/senc")
        }
        let read = CENCPackager.read32
        let tfFlags = read(tfhd.head[...], 0) & 0xFF_FFFF
        guard tfFlags & 0x01 == 0 else { throw CENCPackager.Failure("explicit base_data_offset") }
        var cursor = 8 + (tfFlags & 0x02 != 0 ? 4 : 0) + (tfFlags & 0x08 != 0 ? 4 : 0)
        let defaultSize = tfFlags & 0x10 != 0 ? Int(read(tfhd.head[...], cursor)) : 0
        let trFlags = read(trun.head[...], 0) & 0xFF_FFFF
        let count = Int(read(trun.head[...], 4))
        guard trFlags & 0x01 != 0 else { throw CENCPackager.Failure("trun without a data offset") }
        var sample = moofOffset + Int(Int32(bitPattern: read(trun.head[...], 8)))
        cursor = 12 + (trFlags & 0x04 != 0 ? 4 : 0)
        let sencFlags = read(senc.head[...], 0) & 0xFF_FFFF
        guard Int(read(senc.head[...], 4)) == count else { throw CENCPackager.Failure("senc and trun disagree") }
        var s = 8
        for _ in 0..<count {
            if trFlags & 0x100 != 0 { cursor += 4 }
            var size = defaultSize
            if trFlags & 0x200 != 0 {
                size = Int(read(trun.head[...], cursor))
                cursor += 4
            }
            cursor += (trFlags & 0x400 != 0 ? 4 : 0) + (trFlags & 0x800 != 0 ? 4 : 0)
            let iv = track.constantIV ?? Array(senc.head[s..<s + track.ivSize])
            s += track.ivSize
            var ranges = [(sample, size)]
            if sencFlags & 0x02 != 0 {
                let subsamples = Int(senc.head[s]) << 8 | Int(senc.head[s + 1])
                s += 2
                ranges = []
                var at = sample
                for _ in 0..<subsamples {
                    let clear = Int(senc.head[s]) << 8 | Int(senc.head[s + 1])
                    let protected = Int(read(senc.head[...], s + 2))
                    s += 6
                    ranges.append((at + clear, protected))
                    at += clear + protected
                }
                guard at == sample + size else { throw CENCPackager.Failure("subsamples do not cover the sample") }
            }
            guard sample + size <= data.count else { throw CENCPackager.Failure("a sample runs past the segment") }
            try decryptSample(&data, ranges: ranges, iv: iv, track: track, key: key)
            sample += size
        }
    }

    static func decryptSample(
        _ data: inout [UInt8], ranges: [(start: Int, length: Int)], iv: [UInt8], track: Track, key: [UInt8]
    ) throws {
        let symmetric = SymmetricKey(data: key)
        let iv16 = iv + [UInt8](repeating: 0, count: 16 - iv.count)
        if track.scheme == "cenc" {
            let joined = ranges.flatMap { data[$0.start..<$0.start + $0.length] }
            guard !joined.isEmpty else { return }
            let clear = Array(
                try AES._CTR.decrypt(joined, using: symmetric, nonce: try AES._CTR.Nonce(nonceBytes: iv16)))
            var at = 0
            for range in ranges {
                data.replaceSubrange(range.start..<range.start + range.length, with: clear[at..<at + range.length])
                at += range.length
            }
            return
        }
        guard track.scheme == "cbcs" else { throw CENCPackager.Failure("scheme \(track.scheme) is not read here") }
        for range in ranges {
            // The blocks this range has encrypted, as one CBC chain.
            var blocks: [Int] = []
            var at = range.start
            let end = range.start + range.length
            while at + 16 <= end {
                let crypt = track.skip == 0 ? (end - at) / 16 : min(track.crypt, (end - at) / 16)
                for b in 0..<crypt { blocks.append(at + 16 * b) }
                at += 16 * (crypt + track.skip)
            }
            guard !blocks.isEmpty else { continue }
            let sealed = blocks.flatMap { data[$0..<$0 + 16] }
            let clear = Array(
                try AES._CBC.decrypt(sealed, using: symmetric, iv: try AES._CBC.IV(ivBytes: iv16), noPadding: true))
            for (n, block) in blocks.enumerated() {
                data.replaceSubrange(block..<block + 16, with: clear[16 * n..<16 * n + 16])
            }
        }
    }
}
