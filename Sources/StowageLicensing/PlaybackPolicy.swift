/// Whether a title can be played offline now, and if not, the first condition that fails.
public enum PlaybackPolicy {
    public struct Facts: Sendable {
        public var completed: Bool
        public var expiresAt: Double?
        public var filesPresent: Bool
        public var keysPresent: Bool
        public var now: Double

        public init(completed: Bool, expiresAt: Double?, filesPresent: Bool, keysPresent: Bool, now: Double) {
            self.completed = completed
            self.expiresAt = expiresAt
            self.filesPresent = filesPresent
            self.keysPresent = keysPresent
            self.now = now
        }
    }

    /// nil when playable; otherwise why not, in words.
    public static func refusal(_ f: Facts) -> String? {
        if !f.completed { return "the title is not completely downloaded" }
        if let expiresAt = f.expiresAt, f.now >= expiresAt { return "the license expired" }
        if !f.keysPresent { return "a content key is missing from the store" }
        if !f.filesPresent { return "files of the offline copy are missing" }
        return nil
    }
}
