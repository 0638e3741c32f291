/// How a title's media is protected, as `status --json` shows it (`protection`): the encryption scheme, the
/// key IDs, and every DRM system the source signals with what a device needs to license it.
public struct TitleProtection: Codable, Sendable, Equatable {
    /// One DRM system that can license the title.
    public struct System: Codable, Sendable, Equatable {
        /// `ClearKey`, `Widevine`, `PlayReady`, `FairPlay`, or the system ID when unknown.
        public var name: String
        /// Lowercase UUID with dashes; nil when the source names the system only by key format (HLS).
        public var systemId: String?
        /// The system's `pssh` box (base64), nil when the source carries none.
        public var pssh: String?
        /// License URLs the source names for this system.
        public var licenseUrls: [String]

        public init(name: String, systemId: String?, pssh: String? = nil, licenseUrls: [String] = []) {
            self.name = name
            self.systemId = systemId
            self.pssh = pssh
            self.licenseUrls = licenseUrls
        }

        /// W3C Clear Key, or the W3C common PSSH (Clear Key's own format): anyone with the license URL gets the
        /// keys; Stowage acquires and keeps them.
        public var isClearKey: Bool {
            systemId == TitleProtection.clearKeySystemID || systemId == TitleProtection.commonSystemID
                || name == "ClearKey"
        }

        /// Encodes nil fields as JSON null so scripts see every key.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(systemId, forKey: .systemId)
            try c.encode(pssh, forKey: .pssh)
            try c.encode(licenseUrls, forKey: .licenseUrls)
        }
    }

    /// The W3C Clear Key system ID.
    public static let clearKeySystemID = "e2719d58-a985-b3c9-781a-b030af78d30e"
    /// The W3C common PSSH's system ID: key IDs only, the format EME's Clear Key reads; no device DRM.
    public static let commonSystemID = "1077efec-c0b2-4d02-ace3-3c1e52e2fb4b"
    /// Common Encryption schemes: their keys are 16-byte AES keys by key ID, which a Clear Key server (or the
    /// operator, `submit --key`) can supply whatever DRM systems the source also signals.
    public static let commonEncryptionSchemes: Set<String> = ["cenc", "cbcs", "cens", "cbc1"]

    /// `cenc`, `cbcs`, `cens`, `cbc1` (common encryption), `aes-128` or `sample-aes` (HLS); nil when not
    /// signalled.
    public var scheme: String?
    public var systems: [System]
    /// Key IDs, 32 lowercase hex digits, in the order met.
    public var kids: [String]
    /// Every license URL, in order, without duplicates.
    public var licenseUrls: [String]
    /// Only a device's DRM (FairPlay, Widevine, PlayReady …) can license it: Stowage cannot hold its keys, so
    /// the offline copy is never reported playable here.
    public var deviceOnly: Bool

    public init(scheme: String?, systems: [System], kids: [String], licenseUrls: [String], deviceOnly: Bool) {
        self.scheme = scheme
        self.systems = systems
        self.kids = kids
        self.licenseUrls = licenseUrls
        self.deviceOnly = deviceOnly
    }

    /// The one device-only decision `submit`, `estimate` and `variants` share: a Common Encryption title whose
    /// keys have a source (`--license-url`, `--key`) is playable here whatever device systems it also signals.
    public func given(keySource: Bool) -> TitleProtection {
        var decided = self
        let common = scheme.map { Self.commonEncryptionSchemes.contains($0) } ?? !kids.isEmpty
        if keySource && common { decided.deviceOnly = false }
        return decided
    }

    /// The protection of a title that met `later` too (a live recording's next Period, its key changed): every
    /// system, key ID and license URL of both, in the order met; device-only when either part is.
    public func adding(_ later: TitleProtection) -> TitleProtection {
        var out = self
        out.scheme = scheme ?? later.scheme
        for system in later.systems
        where !out.systems.contains(where: { $0.systemId == system.systemId && $0.name == system.name }) {
            out.systems.append(system)
        }
        out.kids += later.kids.filter { !out.kids.contains($0) }
        out.licenseUrls += later.licenseUrls.filter { !out.licenseUrls.contains($0) }
        out.deviceOnly = deviceOnly || later.deviceOnly
        return out
    }

    /// Why a title only a device's DRM can play is not downloaded without `--allow-device-drm`.
    public func deviceOnlyRefusal(_ url: String) -> String {
        "\(url) is protected by \(systemNames) (scheme \(scheme ?? "unsignalled")): "
            + "only a device with its own license can play it, so an offline copy here would never be playable; "
            + "submit with --license-url (a Clear Key server) or --key KID:KEY if its keys can be had, or with "
            + "--allow-device-drm to store it encrypted for such devices"
    }

    /// The systems' names, for messages: `Widevine and PlayReady`.
    public var systemNames: String {
        let names = systems.filter { !$0.isClearKey }.map(\.name)
        switch names.count {
        case 0: return "an unnamed DRM system"
        case 1: return names[0]
        default: return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        }
    }

    /// Encodes nil fields as JSON null so scripts see every key.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(scheme, forKey: .scheme)
        try c.encode(systems, forKey: .systems)
        try c.encode(kids, forKey: .kids)
        try c.encode(licenseUrls, forKey: .licenseUrls)
        try c.encode(deviceOnly, forKey: .deviceOnly)
    }
}

/// Why a title cannot be played offline now (`status --json` `notPlayableReason`), null when it can.
public struct NotPlayableReason: Codable, Sendable, Equatable, Error {
    /// What stands in the way; scripts branch on these.
    public enum Code: String, Codable, Sendable, CaseIterable {
        /// Not completely downloaded yet (any state before `completed`).
        case downloading
        /// The title ended without an offline copy.
        case failed, canceled
        /// Files of the offline copy are missing from disk.
        case filesMissing = "files-missing"
        /// Files of the offline copy failed verification.
        case filesCorrupt = "files-corrupt"
        /// A content key is missing from the store.
        case keysMissing = "keys-missing"
        /// The license expired (rental, play duration) or was revoked.
        case licenseExpired = "license-expired"
        /// The plays or the play time the license allows are used up.
        case licenseUsedUp = "license-used-up"
        /// The clock went back while the license is time-limited: renew it.
        case clockRolledBack = "clock-rolled-back"
        /// Protected by a device-only DRM system: only a device with its own license can play it.
        case deviceLicenseRequired = "device-license-required"
        /// The license was moved to another box with its copy (`stowctl export --move`).
        case transferred
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Any state before `completed`.
    public static let notDownloaded = NotPlayableReason(.downloading, "the title is not completely downloaded")

    /// A title that ended without an offline copy (`failed`, `canceled`); nil for any other state.
    public static func ended(_ state: TitleState) -> NotPlayableReason? {
        switch state {
        case .failed: NotPlayableReason(.failed, "the title failed before its offline copy was complete")
        case .canceled: NotPlayableReason(.canceled, "the title was canceled before its offline copy was complete")
        default: nil
        }
    }
}
