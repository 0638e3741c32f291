/// What a title's ContentProtection elements say: the encryption scheme, key IDs, and the DRM systems (with their
/// PSSH boxes and license URLs) that can license it.
public struct ProtectionSummary: Sendable, Equatable, Codable {
    /// One DRM system the MPD signals.
    public struct System: Sendable, Equatable, Codable {
        /// System ID, lowercase UUID with dashes (`org.w3.clearkey` is reported as the Clear Key system ID).
        public var id: String
        /// `Widevine`, `PlayReady`, `FairPlay`, `ClearKey`, or nil when unknown.
        public var name: String?
        /// `cenc:pssh` boxes, base64.
        public var pssh: [String]
        public var licenseURLs: [String]

        public init(id: String, name: String?, pssh: [String] = [], licenseURLs: [String] = []) {
            self.id = id
            self.name = name
            self.pssh = pssh
            self.licenseURLs = licenseURLs
        }

        /// A system whose keys a Clear Key server hands out: W3C Clear Key, or the W3C common PSSH, which is
        /// Clear Key's own format (Shaka Packager's raw-key output carries only that one).
        public var isClearKey: Bool { ProtectionSummary.clearKeySystems.contains(id) }
    }

    public static let clearKeySystemID = "e2719d58-a985-b3c9-781a-b030af78d30e"
    /// The W3C common PSSH ("cenc" initData format): key IDs only, read by EME's Clear Key; not a device DRM.
    public static let commonSystemID = "1077efec-c0b2-4d02-ace3-3c1e52e2fb4b"
    /// Systems that need no device: a Clear Key server (or the operator) supplies their keys.
    public static let clearKeySystems: Set<String> = [clearKeySystemID, commonSystemID]

    /// Known DRM system IDs and their names.
    public static let knownSystems: [String: String] = [
        "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine",
        "9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
        "94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay",
        clearKeySystemID: "ClearKey",
        commonSystemID: "Common",
    ]

    /// `cenc`, `cbcs`, `cens` or `cbc1`, from `urn:mpeg:dash:mp4protection:2011`; nil when not signalled.
    public var scheme: String?
    /// Default key IDs, 32 lowercase hex digits, in the order met.
    public var keyIDs: [String]
    public var systems: [System]
    /// Segment encryption (``SegmentEncryption``, scheme `aes-128`) is signalled: keys from plain key URLs, which
    /// Stowage fetches itself, so it is never device-only.
    public var segmentEncryption: Bool

    public init(scheme: String?, keyIDs: [String], systems: [System], segmentEncryption: Bool = false) {
        self.scheme = scheme
        self.keyIDs = keyIDs
        self.systems = systems
        self.segmentEncryption = segmentEncryption
    }

    /// Summarizes ContentProtection elements (of every chosen Representation, say); duplicates are merged.
    public init(_ protections: [ContentProtection]) {
        var scheme: String?
        var keyIDs: [String] = []
        var systems: [System] = []
        var segmentEncryption = false
        for protection in protections {
            if let kid = protection.defaultKID, !keyIDs.contains(kid) { keyIDs.append(kid) }
            let uri = protection.schemeIdUri.lowercased()
            if protection.segmentEncryption != nil {
                segmentEncryption = true
                continue
            }
            if uri == ContentProtection.mp4ProtectionScheme {
                if scheme == nil, let value = protection.value?.lowercased(), !value.isEmpty { scheme = value }
                continue
            }
            let id: String
            if uri == "org.w3.clearkey" || uri == "urn:uuid:org.w3.clearkey" {
                id = Self.clearKeySystemID
            } else if let systemID = protection.systemID {
                id = systemID
            } else {
                continue
            }
            let index: Int
            if let existing = systems.firstIndex(where: { $0.id == id }) {
                index = existing
            } else {
                systems.append(System(id: id, name: Self.knownSystems[id]))
                index = systems.count - 1
            }
            for box in protection.pssh where !systems[index].pssh.contains(box) { systems[index].pssh.append(box) }
            for url in protection.licenseURLs.map(\.url) where !systems[index].licenseURLs.contains(url) {
                systems[index].licenseURLs.append(url)
            }
        }
        if segmentEncryption, scheme == nil { scheme = Self.segmentEncryptionScheme }
        self.init(scheme: scheme, keyIDs: keyIDs, systems: systems, segmentEncryption: segmentEncryption)
    }

    /// The scheme shown for segment encryption: the cipher HLS calls `AES-128` (whole segments, CBC, PKCS7).
    public static let segmentEncryptionScheme = "aes-128"

    /// Whether anything is signalled as encrypted.
    public var isEncrypted: Bool { scheme != nil || !keyIDs.isEmpty || !systems.isEmpty || segmentEncryption }

    /// Encrypted, and no Clear Key system (W3C Clear Key or the common PSSH) among the ways to license it and no
    /// segment encryption (whose keys Stowage fetches): only a device's DRM can play it unless the operator names
    /// a key source (``TitleProtection/given(keySource:)``).
    public var isDeviceOnly: Bool { isEncrypted && !segmentEncryption && !systems.contains(where: \.isClearKey) }

    /// Every license URL, in order, without duplicates.
    public var licenseURLs: [String] {
        var urls: [String] = []
        for url in systems.flatMap(\.licenseURLs) where !urls.contains(url) { urls.append(url) }
        return urls
    }
}
