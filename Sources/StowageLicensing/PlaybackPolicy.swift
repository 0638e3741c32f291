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

        public init(
            completed: Bool, expiresAt: Double?, filesPresent: Bool, keysPresent: Bool, now: Double,
            streaming: Bool = false
        ) {
            self.streaming = streaming
            self.completed = completed
            self.expiresAt = expiresAt
            self.filesPresent = filesPresent
            self.keysPresent = keysPresent
            self.now = now
        }
    }

    /// nil when playable; otherwise why not, in words.
    public static func refusal(_ f: Facts) -> String? {
        if !f.completed && !f.streaming { return "the title is not completely downloaded" }
        if let expiresAt = f.expiresAt, f.now >= expiresAt { return "the license expired" }
        if !f.keysPresent { return "a content key is missing from the store" }
        if !f.filesPresent && !f.streaming { return "files of the offline copy are missing" }
        return nil
    }
}
