/// Cheap structural checks that catch truncated, shifted or wrong files: the kind of damage a hash
/// taken of a freshly stored file cannot see (it hashes whatever arrived).
public enum ContainerCheck {
    /// The container a file should be.
    public enum Kind: String, Sendable {
        case mpegTS = "ts"
        case fmp4
        case webVTT = "vtt"
        case other
    }

    /// Incremental checker fed with consecutive chunks of one file.
    public struct Checker: Sendable {
        public let kind: Kind
        private var offset: Int64 = 0
        private var nextBoxAt: Int64 = 0
        private var header: [UInt8] = []
        private var boxHeader: [UInt8] = []
        private var failure: String?

        public init(kind: Kind) { self.kind = kind }

        /// Feeds the next chunk of the file.
        public mutating func feed(_ chunk: UnsafeRawBufferPointer) {
            guard failure == nil else { return }
            switch kind {
            case .mpegTS: feedTS(chunk)
            case .fmp4: feedMP4(chunk)
            case .webVTT: feedHeader(chunk, limit: 16)
            case .other: break
            }
            offset += Int64(chunk.count)
        }

        /// The verdict once the whole file was fed: nil when sane, otherwise what is wrong.
        public func finish() -> String? {
            if let failure { return failure }
            switch kind {
            case .mpegTS:
                if offset == 0 { return "MPEG-TS file is empty" }
                if packedAudio { return nil }
                if offset % 188 != 0 { return "MPEG-TS length \(offset) is not a multiple of 188 bytes (truncated?)" }
            case .fmp4:
                if offset == 0 { return "fMP4 file is empty" }
                if nextBoxAt != offset {
                    return
                        "fMP4 box at offset \(lastBoxStart) runs past the end of the file (\(offset) bytes): truncated"
                }
            case .webVTT:
                var h = header[...]
                if h.starts(with: [0xEF, 0xBB, 0xBF]) { h = h.dropFirst(3) }
                guard h.starts(with: Array("WEBVTT".utf8)) else { return "WebVTT file does not start with 'WEBVTT'" }
                if h.count > 6, let next = h.dropFirst(6).first, ![0x20, 0x09, 0x0A, 0x0D].contains(next) {
                    return "WebVTT header 'WEBVTT' is followed by an unexpected character"
                }
            case .other: break
            }
            return nil
        }

        private var lastBoxStart: Int64 = 0

        private var packedAudio = false

        private mutating func feedTS(_ chunk: UnsafeRawBufferPointer) {
            // Extensionless URIs are assumed to be TS; packed audio (ID3 tag or ADTS sync first) is not, and
            // has no packet structure to check.
            if offset == 0, chunk.count >= 3, chunk[0] != 0x47,
                (chunk[0] == 0x49 && chunk[1] == 0x44 && chunk[2] == 0x33)
                    || (chunk[0] == 0xFF && chunk[1] & 0xF0 == 0xF0)
            {
                packedAudio = true
            }
            if packedAudio { return }
            // The sync byte 0x47 starts every 188-byte packet.
            var position = (188 - Int(offset % 188)) % 188
            while position < chunk.count {
                if chunk[position] != 0x47 {
                    failure =
                        "MPEG-TS sync byte missing at offset \(offset + Int64(position)) "
                        + "(packet \((offset + Int64(position)) / 188))"
                    return
                }
                position += 188
            }
        }

        private mutating func feedMP4(_ chunk: UnsafeRawBufferPointer) {
            var position = 0
            while position < chunk.count {
                let absolute = offset + Int64(position)
                if absolute < nextBoxAt {
                    position += Int(min(nextBoxAt - absolute, Int64(chunk.count - position)))
                    continue
                }
                // Collect the 8-byte (or 16-byte for 64-bit size) box header, possibly across chunks.
                boxHeader.append(chunk[position])
                position += 1
                if boxHeader.count == 8 || boxHeader.count == 16 {
                    let size32 = boxHeader[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    let type = boxHeader[4..<8]
                    guard type.allSatisfy({ (0x20...0x7e).contains($0) }) else {
                        failure = "fMP4 box at offset \(nextBoxAt) has a non-printable type: not an ISO BMFF box"
                        return
                    }
                    var size = size32
                    if size32 == 1 {
                        if boxHeader.count < 16 { continue }
                        size = boxHeader[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    } else if size32 == 0 {
                        failure =
                            "fMP4 box '\(String(decoding: type, as: UTF8.self))' extends to end of file, "
                            + "which HLS fragments do not use"
                        return
                    }
                    guard size >= UInt64(boxHeader.count), size < UInt64(Int64.max / 2) else {
                        failure =
                            "fMP4 box '\(String(decoding: type, as: UTF8.self))' at offset \(nextBoxAt) has "
                            + "an impossible size \(size)"
                        return
                    }
                    lastBoxStart = nextBoxAt
                    nextBoxAt += Int64(size)
                    boxHeader.removeAll(keepingCapacity: true)
                }
            }
        }

        private mutating func feedHeader(_ chunk: UnsafeRawBufferPointer, limit: Int) {
            if header.count < limit { header.append(contentsOf: chunk.prefix(limit - header.count)) }
        }
    }
}
