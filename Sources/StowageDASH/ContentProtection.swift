import Foundation
import StowageProtocol

/// One `ContentProtection` element: a protection scheme (`urn:mpeg:dash:mp4protection:2011`) or a DRM system
/// (`urn:uuid:<system id>`), with what it carries.
public struct ContentProtection: Sendable, Equatable, Codable {
    /// A license server URL and the element that named it (`Laurl`, `laurl`, `la_url`).
    public struct LicenseURL: Sendable, Equatable, Codable {
        public var url: String
        /// The element's local name as written.
        public var element: String
        /// The element's namespace URI, when declared.
        public var namespace: String?
        /// `@licenseType` (`EME-1.0` …), when given.
        public var licenseType: String?

        public init(url: String, element: String, namespace: String? = nil, licenseType: String? = nil) {
            self.url = url
            self.element = element
            self.namespace = namespace
            self.licenseType = licenseType
        }
    }

    public var schemeIdUri: String
    public var value: String?
    /// `cenc:default_KID`, normalized to 32 lowercase hex digits.
    public var defaultKID: String?
    /// `cenc:pssh` contents (base64 of whole `pssh` boxes), whitespace removed.
    public var pssh: [String]
    public var licenseURLs: [LicenseURL]
    /// The crypto periods of a `urn:mpeg:dash:sea:2012` element (``SegmentEncryption``); nil for any other.
    public var segmentEncryption: SegmentEncryption?

    public init(
        schemeIdUri: String, value: String? = nil, defaultKID: String? = nil, pssh: [String] = [],
        licenseURLs: [LicenseURL] = [], segmentEncryption: SegmentEncryption? = nil
    ) {
        self.schemeIdUri = schemeIdUri
        self.value = value
        self.defaultKID = defaultKID
        self.pssh = pssh
        self.licenseURLs = licenseURLs
        self.segmentEncryption = segmentEncryption
    }

    /// The MPEG common-encryption scheme signal (`value` is then `cenc`, `cbcs`, …).
    public static let mp4ProtectionScheme = "urn:mpeg:dash:mp4protection:2011"

    /// The DRM system ID when `schemeIdUri` is `urn:uuid:…` (lowercase, with dashes).
    public var systemID: String? {
        let lower = schemeIdUri.lowercased()
        guard lower.hasPrefix("urn:uuid:") else { return nil }
        return String(lower.dropFirst(9))
    }

    static func parse(_ node: XMLNode) throws(DASHError) -> ContentProtection {
        guard let scheme = node.attribute("schemeIdUri"), !scheme.isEmpty else {
            throw DASHError.missing("ContentProtection", "schemeIdUri")
        }
        var kid: String?
        if let text = node.attribute("default_KID") {
            guard let normalized = normalizeKID(text) else {
                throw DASHError.invalid("ContentProtection", "cenc:default_KID", text, "a 16-byte key ID (UUID)")
            }
            kid = normalized
        }
        var pssh: [String] = []
        for box in node.children("pssh") {
            let cleaned = String(box.text.filter { !$0.isWhitespace })
            guard !cleaned.isEmpty, Data(base64Encoded: cleaned) != nil else {
                throw DASHError(
                    .invalidAttribute, element: "cenc:pssh",
                    "cenc:pssh of ContentProtection '\(scheme.prefix(60))' is not base64")
            }
            pssh.append(cleaned)
        }
        var urls: [LicenseURL] = []
        for child in node.children where ["Laurl", "laurl", "la_url"].contains(child.name) {
            let url = child.text.isEmpty ? (child.attribute("licenseUrl") ?? "") : child.text
            guard !url.isEmpty else { continue }
            urls.append(
                LicenseURL(
                    url: url, element: child.name, namespace: child.namespace,
                    licenseType: child.attribute("licenseType")))
        }
        let sea =
            scheme.lowercased() == SegmentEncryption.scheme ? try SegmentEncryption.parse(node) : nil
        return ContentProtection(
            schemeIdUri: scheme, value: node.attribute("value"), defaultKID: kid, pssh: pssh, licenseURLs: urls,
            segmentEncryption: sea)
    }

    /// 32 lowercase hex digits from a UUID (`10000000-1000-…`) or plain hex, nil when it is neither.
    public static func normalizeKID(_ text: String) -> String? {
        let hex = text.trimmingCharacters(in: .whitespaces).filter { $0 != "-" }.lowercased()
        guard Hex.isHex(hex, bytes: 16) else { return nil }
        return hex
    }
}
