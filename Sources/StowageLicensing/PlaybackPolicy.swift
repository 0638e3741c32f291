import StowageProtocol

/// Whether a title can be played offline now, and if not, the first condition that fails.
public enum PlaybackPolicy {
    public struct Facts: Sendable {
        public var completed: Bool
        public var expiresAt: Double?
        public var filesPresent: Bool
        public var keysPresent: Bool
        public var now: Double
        /// Still downloading, and the caller streams what is missing from the origin (`play` only):
        /// then neither completion nor every file on disk is required.
        public var streaming: Bool
        /// Only a device's DRM can license the media (Widevine, PlayReady, FairPlay).
        public var deviceOnly: Bool
        /// Files of the offline copy failed verification.
        public var corrupt: Bool
        /// `stowctl export --move` gave the license to this box (its id; empty: a box the bundle did not name).
        public var transferredTo: String?

        public init(
            completed: Bool, expiresAt: Double?, filesPresent: Bool, keysPresent: Bool, now: Double,
            streaming: Bool = false, deviceOnly: Bool = false, corrupt: Bool = false
        ) {
            self.deviceOnly = deviceOnly
            self.corrupt = corrupt
            self.streaming = streaming
            self.completed = completed
            self.expiresAt = expiresAt
            self.filesPresent = filesPresent
            self.keysPresent = keysPresent
            self.now = now
        }
    }

    /// nil when playable; otherwise why not, in words.
    public static func refusal(_ f: Facts) -> String? { reason(f)?.message }

    /// nil when playable; otherwise why not, with the code `status --json` shows.
    public static func reason(_ f: Facts) -> NotPlayableReason? {
        if !f.completed && !f.streaming { return .notDownloaded }
        if let box = f.transferredTo {
            let to = box.isEmpty ? "another box" : "box \(box)"
            return .init(.transferred, "the license was moved to \(to) with `stowctl export --move`: play it there")
        }
        if f.deviceOnly {
            return .init(
                .deviceLicenseRequired,
                "only a device's DRM can license this media: a device needs its own license (see `protection`)")
        }
        if let expiresAt = f.expiresAt, f.now >= expiresAt { return .init(.licenseExpired, "the license expired") }
        if !f.keysPresent { return .init(.keysMissing, "a content key is missing from the store") }
        if !f.filesPresent && !f.streaming { return .init(.filesMissing, "files of the offline copy are missing") }
        if f.corrupt { return .init(.filesCorrupt, "files of the offline copy failed verification") }
        return nil
    }
}
