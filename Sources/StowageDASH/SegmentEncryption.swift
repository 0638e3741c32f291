import Foundation
import StowageProtocol

/// DASH segment encryption (ISO/IEC 23009-4, "SEA"): a ContentProtection `urn:mpeg:dash:sea:2012` whose
/// `sea:SegmentEncryption` is `urn:mpeg:dash:sea:aes128-cbc:2013` encrypts every media segment whole with
/// AES-128-CBC and PKCS7 padding — what HLS `METHOD=AES-128` does — with keys fetched over HTTP from the URLs its
/// `sea:CryptoPeriod` / `sea:CryptoTimeline` elements name (key system `urn:mpeg:dash:sea:keysys:http:2013`).
/// Initialization segments stay clear. Stowage keeps such segments as delivered and fetches their keys like HLS
/// AES-128 keys; the local MPD names them `/keys/N`.
public struct SegmentEncryption: Sendable, Equatable, Codable {
    /// One `sea:CryptoPeriod` (one run of segments under one key) or `sea:CryptoTimeline` (`count` runs of
    /// `numSegments` each, one key per run).
    public struct CryptoPeriod: Sendable, Equatable, Codable {
        /// Segments left clear between the end of the previous element's runs and the first of this one.
        public var offset: UInt64
        /// Segments in each run; nil = every segment to the end (only the last element may leave it out).
        public var numSegments: UInt64?
        /// Runs this element describes: 1 for a CryptoPeriod, `@numCryptoPeriods` for a CryptoTimeline.
        public var count: UInt64
        /// The key's URL; `$Number$` is the number of the run's first segment, and `$RepresentationID$` and
        /// `$Bandwidth$` are the Representation's.
        public var keyUriTemplate: String
        /// The IV of every segment of the run (16 bytes); nil = each segment's number as a 128-bit big-endian
        /// integer.
        public var iv: [UInt8]?

        public init(
            offset: UInt64 = 0, numSegments: UInt64?, count: UInt64 = 1, keyUriTemplate: String, iv: [UInt8]? = nil
        ) {
            self.offset = offset
            self.numSegments = numSegments
            self.count = count
            self.keyUriTemplate = keyUriTemplate
            self.iv = iv
        }
    }

    public static let scheme = "urn:mpeg:dash:sea:2012"
    /// The XML namespace of the `sea:` elements.
    public static let namespace = "urn:mpeg:dash:schema:sea:2012"
    /// The one encryption system handled: AES-128-CBC over whole segments, PKCS7 padding.
    public static let aes128CBC = "urn:mpeg:dash:sea:aes128-cbc:2013"
    /// The one key system handled: the key is the body of an HTTP GET of its URL.
    public static let httpKeySystem = "urn:mpeg:dash:sea:keysys:http:2013"

    /// In document order.
    public var periods: [CryptoPeriod]

    public init(periods: [CryptoPeriod]) { self.periods = periods }

    /// Reads the children of a `urn:mpeg:dash:sea:2012` ContentProtection. Anything Stowage cannot decrypt the
    /// way a player would — another cipher or key system, IVs fetched from a URL, encrypted IVs — is refused
    /// naming the element and attribute, before anything is downloaded.
    static func parse(_ node: XMLNode) throws(DASHError) -> SegmentEncryption {
        for child in node.children("SegmentEncryption") {
            let system = child.attribute("schemeIdUri") ?? child.attribute("encryptionSystemUri")
            if let system, system.lowercased() != aes128CBC {
                throw DASHError(
                    .unsupported, element: "sea:SegmentEncryption", attribute: "schemeIdUri",
                    "sea:SegmentEncryption '\(system.prefix(80))' is not supported: only \(aes128CBC) "
                        + "(AES-128-CBC over whole segments) is")
            }
            if child.attribute("ivEncryptionFlag")?.lowercased() == "true" {
                throw DASHError(
                    .unsupported, element: "sea:SegmentEncryption", attribute: "ivEncryptionFlag",
                    "sea:SegmentEncryption@ivEncryptionFlag='true' (IVs encrypted with the key) is not supported")
            }
        }
        for child in node.children("KeySystem") {
            let system = child.attribute("keySystemUri") ?? child.attribute("schemeIdUri")
            if let system, system.lowercased() != httpKeySystem {
                throw DASHError(
                    .unsupported, element: "sea:KeySystem", attribute: "keySystemUri",
                    "sea:KeySystem '\(system.prefix(80))' is not supported: only \(httpKeySystem) "
                        + "(keys fetched by HTTP GET) is")
            }
        }
        let elements = node.children.filter { $0.name == "CryptoPeriod" || $0.name == "CryptoTimeline" }
        guard !elements.isEmpty else {
            throw DASHError(
                .missingAttribute, element: "sea:CryptoPeriod",
                "a ContentProtection '\(scheme)' has no sea:CryptoPeriod: without one no key URL is known")
        }
        var periods: [CryptoPeriod] = []
        for (index, element) in elements.enumerated() {
            periods.append(try period(element, last: index == elements.count - 1))
        }
        return SegmentEncryption(periods: periods)
    }

    private static func period(_ node: XMLNode, last: Bool) throws(DASHError) -> CryptoPeriod {
        let name = "sea:\(node.name)"
        guard let template = node.attribute("keyUriTemplate")?.trimmingCharacters(in: .whitespacesAndNewlines),
            !template.isEmpty
        else {
            throw DASHError.missing(name, "keyUriTemplate", "the URL of the segments' key; without it no key is known")
        }
        if node.attribute("ivUriTemplate") != nil {
            throw DASHError(
                .unsupported, element: name, attribute: "ivUriTemplate",
                "\(name)@ivUriTemplate (IVs fetched from a URL) is not supported")
        }
        var iv: [UInt8]?
        if let text = node.attribute("IV") {
            guard let bytes = Self.iv(text) else {
                throw DASHError.invalid(name, "IV", text, "a 16-byte IV in hex (0x followed by 32 hex digits)")
            }
            iv = bytes
        }
        let numSegments = try node.positive("numSegments")
        if node.name == "CryptoTimeline" {
            guard let numSegments else {
                throw DASHError.missing(name, "numSegments", "the length of each of its crypto periods")
            }
            guard let count = try node.positive("numCryptoPeriods") else {
                throw DASHError.missing(name, "numCryptoPeriods", "how many crypto periods it describes")
            }
            return CryptoPeriod(
                offset: try node.unsigned("firstOffset") ?? 0, numSegments: numSegments, count: count,
                keyUriTemplate: template, iv: iv)
        }
        guard numSegments != nil || last else {
            throw DASHError.missing(name, "numSegments", "only the last crypto period may run to the end")
        }
        return CryptoPeriod(
            offset: try node.unsigned("offset") ?? 0, numSegments: numSegments, keyUriTemplate: template, iv: iv)
    }

    /// 16 bytes from `0x` + 32 hex digits (the prefix is optional), nil otherwise.
    public static func iv(_ text: String) -> [UInt8]? {
        var hex = Substring(text.trimmingCharacters(in: .whitespaces))
        if hex.lowercased().hasPrefix("0x") { hex = hex.dropFirst(2) }
        guard Hex.isHex(hex, bytes: 16) else { return nil }
        return try? Hex.decode(hex)
    }

    /// The IV of a segment encrypted without `@IV`: its number as a 128-bit big-endian integer.
    public static func iv(number: UInt64) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * $0)) }
    }

    /// `0x` + 32 lowercase hex digits.
    public static func hex(_ iv: [UInt8]) -> String { "0x" + Hex.encode(iv) }
}
