import Crypto
import Foundation
import StowageTestSupport
import _CryptoExtras

/// Turns clear fragmented-MP4 DASH files (ffmpeg's) into Common Encryption, scheme `cenc` (AES-128-CTR, whole
/// samples, 8-byte IVs), as a packager would: ffmpeg 5.1 cannot write decryptable CENC DASH itself.
///
/// The initialization segment's sample entry becomes `encv`/`enca` with a `sinf` (`frma`, `schm` `cenc`, `tenc`
/// with the default KID) and the given `pssh` boxes go into `moov`; each media segment's samples are encrypted
/// in place in `mdat`, and every `traf` gets `saiz`, `saio` and `senc` (the IVs), `trun` data offsets moved by
/// what the `moof` grew.
enum CENCPackager {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A box: its type, the bytes before its children (a container's fixed fields) or its whole payload (a
    /// leaf), and its children.
    final class Box {
        var type: String
        var head: [UInt8]
        var children: [Box]?

        init(_ type: String, head: [UInt8] = [], children: [Box]? = nil) {
            self.type = type
            self.head = head
            self.children = children
        }

        var size: Int { 8 + head.count + (children ?? []).reduce(0) { $0 + $1.size } }

        var bytes: [UInt8] {
            var out = CENCPackager.be32(UInt32(size)) + Array(type.utf8) + head
            for child in children ?? [] { out += child.bytes }
            return out
        }

        func child(_ type: String) -> Box? { children?.first { $0.type == type } }
    }

    /// Bytes before the children of the container boxes this packager walks into.
    static let containerHeads: [String: Int] = [
        "moov": 0, "trak": 0, "mdia": 0, "minf": 0, "stbl": 0, "moof": 0, "traf": 0, "mvex": 0,
        "stsd": 8, "avc1": 78, "avc3": 78, "hvc1": 78, "hev1": 78, "mp4a": 28,
    ]
    static let protectedFormats = ["avc1": "encv", "avc3": "encv", "hvc1": "encv", "hev1": "encv", "mp4a": "enca"]

    static func parse(_ bytes: ArraySlice<UInt8>) throws -> [Box] {
        var boxes: [Box] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            guard offset + 8 <= bytes.endIndex else { throw Failure("a box header is cut at \(offset)") }
            let size = Int(read32(bytes, offset - bytes.startIndex))
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= bytes.endIndex else { throw Failure("box \(type) overruns its parent") }
            let body = bytes[offset + 8..<offset + size]
            if let head = containerHeads[type], body.count >= head {
                let start = body.startIndex
                boxes.append(
                    Box(type, head: Array(body[start..<start + head]), children: try parse(body.dropFirst(head))))
            } else {
                boxes.append(Box(type, head: Array(body)))
            }
            offset += size
        }
        return boxes
    }

    /// A version-1 `pssh` box naming `kids`.
    static func pssh(systemID: [UInt8], kids: [[UInt8]], data: [UInt8] = []) -> [UInt8] {
        var head: [UInt8] = [1, 0, 0, 0] + systemID + be32(UInt32(kids.count))
        for kid in kids { head += kid }
        head += be32(UInt32(data.count)) + data
        return Box("pssh", head: head).bytes
    }

    /// The initialization segment with every video/audio track protected by `kid`, and `pssh` boxes in `moov`.
    static func encryptInit(_ bytes: [UInt8], kid: [UInt8], pssh: [[UInt8]]) throws -> [UInt8] {
        let boxes = try parse(bytes[...])
        guard let moov = boxes.first(where: { $0.type == "moov" }) else { throw Failure("no moov") }
        var protected = 0
        for trak in moov.children ?? [] where trak.type == "trak" {
            guard let stsd = trak.child("mdia")?.child("minf")?.child("stbl")?.child("stsd"),
                let entry = stsd.children?.first, let renamed = protectedFormats[entry.type]
            else { continue }
            let tenc = Box("tenc", head: [0, 0, 0, 0, 0, 0, 1, 8] + kid)
            let sinf = Box(
                "sinf",
                children: [
                    Box("frma", head: Array(entry.type.utf8)),
                    Box("schm", head: [0, 0, 0, 0] + Array("cenc".utf8) + be32(0x0001_0000)),
                    Box("schi", children: [tenc]),
                ])
            entry.type = renamed
            entry.children = (entry.children ?? []) + [sinf]
            protected += 1
        }
        guard protected > 0 else { throw Failure("no video or audio sample entry to protect") }
        for box in pssh { moov.children = (moov.children ?? []) + (try parse(box[...])) }
        return boxes.flatMap(\.bytes)
    }

    /// A media segment with every sample encrypted under `key`; IVs count up from `ivSeed`. A `sidx` with one
    /// reference per `moof` gets each reference's size grown by what its `moof` grew.
    static func encryptSegment(_ bytes: [UInt8], key: [UInt8], ivSeed: UInt64) throws -> [UInt8] {
        var data = bytes
        var parts: [[UInt8]] = []
        var sidxPart: Int?
        var growths: [Int] = []
        var offset = 0
        var iv = ivSeed
        for box in try parse(bytes[...]) {
            let size = box.size
            defer { offset += size }
            if box.type == "sidx" { sidxPart = parts.count }
            guard box.type == "moof" else {
                parts.append(Array(data[offset..<offset + size]))
                continue
            }
            let grown = try protect(moof: box, at: offset, in: &data, key: key, iv: &iv)
            growths.append(grown.count - size)
            parts.append(grown)
        }
        if let index = sidxPart { parts[index] = try grow(sidx: parts[index], by: growths) }
        return parts.flatMap { $0 }
    }

    /// A `sidx` whose references (one per `moof`, in order) grow by `growths`.
    static func grow(sidx: [UInt8], by growths: [Int]) throws -> [UInt8] {
        var box = sidx
        let version = box[8]
        var at = 8 + 4 + 4 + 4 + (version == 0 ? 8 : 16) + 2
        let count = Int(box[at]) << 8 | Int(box[at + 1])
        guard count == growths.count else { throw Failure("sidx has \(count) references for \(growths.count) moofs") }
        at += 2
        for growth in growths {
            let word = read32(box[...], at)
            let size = Int(word & 0x7FFF_FFFF) + growth
            box.replaceSubrange(at..<at + 4, with: be32(word & 0x8000_0000 | UInt32(size)))
            at += 12
        }
        return box
    }

    /// Encrypts the samples a `moof` describes (in `data`) and returns the new `moof` bytes.
    static func protect(moof: Box, at moofOffset: Int, in data: inout [UInt8], key: [UInt8], iv: inout UInt64)
        throws -> [UInt8]
    {
        let oldSize = moof.size
        var trunOffsets: [(Box, Int)] = []  // trun boxes and their data offsets, fixed once the moof's size is known
        var sencs: [(traf: Box, senc: Box)] = []
        for traf in moof.children ?? [] where traf.type == "traf" {
            guard let tfhd = traf.child("tfhd"), let trun = traf.child("trun") else {
                throw Failure("traf lacks tfhd/trun")
            }
            let tfFlags = read32(tfhd.head[...], 0) & 0xFF_FFFF
            var cursor = 8
            var base = moofOffset
            if tfFlags & 0x01 != 0 {
                base = Int(read64(tfhd.head[...], cursor))
                throw Failure("explicit base_data_offset is not handled (\(base))")
            }
            if tfFlags & 0x02 != 0 { cursor += 4 }
            if tfFlags & 0x08 != 0 { cursor += 4 }
            let defaultSize = tfFlags & 0x10 != 0 ? Int(read32(tfhd.head[...], cursor)) : nil
            let trFlags = read32(trun.head[...], 0) & 0xFF_FFFF
            let count = Int(read32(trun.head[...], 4))
            var position = 8
            guard trFlags & 0x01 != 0 else { throw Failure("trun without a data offset") }
            let dataOffset = Int(Int32(bitPattern: read32(trun.head[...], position)))
            trunOffsets.append((trun, dataOffset))
            position += 4
            if trFlags & 0x04 != 0 { position += 4 }
            var sample = base + dataOffset
            var ivs: [UInt8] = []
            for _ in 0..<count {
                if trFlags & 0x100 != 0 { position += 4 }
                var size = defaultSize ?? 0
                if trFlags & 0x200 != 0 {
                    size = Int(read32(trun.head[...], position))
                    position += 4
                }
                if trFlags & 0x400 != 0 { position += 4 }
                if trFlags & 0x800 != 0 { position += 4 }
                guard sample + size <= data.count else { throw Failure("a sample runs past the segment") }
                let ivBytes = be64(iv)
                let nonce = try AES._CTR.Nonce(nonceBytes: ivBytes + [UInt8](repeating: 0, count: 8))
                let sealed = try AES._CTR.encrypt(
                    data[sample..<sample + size], using: SymmetricKey(data: key), nonce: nonce)
                data.replaceSubrange(sample..<sample + size, with: sealed)
                ivs += ivBytes
                iv += 1
                sample += size
            }
            let senc = Box("senc", head: [0, 0, 0, 0] + be32(UInt32(count)) + ivs)
            traf.children =
                (traf.children ?? []) + [
                    Box("saiz", head: [0, 0, 0, 0, 8] + be32(UInt32(count))),
                    Box("saio", head: [0, 0, 0, 0] + be32(1) + be32(0)),
                    senc,
                ]
            sencs.append((traf, senc))
        }
        let growth = moof.size - oldSize
        for (trun, dataOffset) in trunOffsets {
            trun.head.replaceSubrange(8..<12, with: be32(UInt32(bitPattern: Int32(dataOffset + growth))))
        }
        // saio: where each traf's IVs start, from the moof's first byte.
        var position = 8
        for child in moof.children ?? [] {
            if let entry = sencs.first(where: { $0.traf === child }) {
                let sencStart = position + child.size - entry.senc.size
                let saio = child.children?.first { $0.type == "saio" }
                saio?.head.replaceSubrange(8..<12, with: be32(UInt32(sencStart + 8 + 8)))
            }
            position += child.size
        }
        return moof.bytes
    }

    static func read32(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        let i = b.startIndex + at
        return UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func read64(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt64 {
        UInt64(read32(b, at)) << 32 | UInt64(read32(b, at + 4))
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
}
