/// Which titles may become one `.mp4`/`.mkv` file (`stowctl remux`, `submit --file`): only a clear title without
/// license limits. One file outlives its license: it plays on any device, as often and as long as anyone likes,
/// with no key released and no play metered, so a title whose media is encrypted, or whose license limits its
/// plays (a rental or an expiry, a play duration, a play count, a total play time), never becomes one.
/// The one rule both the CLI and the scheduler ask.
public struct SingleFileClearance: Sendable, Equatable {
    /// The media is encrypted (a DRM system, Clear Key, HLS AES-128, or operator keys).
    public var protected: Bool
    /// A rental, or a license that expires.
    public var expires: Bool
    /// Plays end a while after the first (`--play-duration`).
    public var playDuration: Bool
    /// A number of plays (`--play-count`).
    public var playCount: Bool
    /// A total play time (`--play-time`).
    public var playTime: Bool

    public init(protected: Bool, expires: Bool, playDuration: Bool, playCount: Bool, playTime: Bool) {
        self.protected = protected
        self.expires = expires
        self.playDuration = playDuration
        self.playCount = playCount
        self.playTime = playTime
    }

    /// What a title's status says of it (`stowctl remux`).
    public init(status: TitleStatus) {
        let license = status.license
        self.init(
            protected: status.protection != nil, expires: license?.kind == .rental || license?.expiresAt != nil,
            playDuration: license?.playDurationSeconds != nil, playCount: license?.playsRemaining != nil,
            playTime: license?.playTimeRemainingSeconds != nil)
    }

    /// What a submit asks for, before anything is fetched (`submit --file`): its terms and operator keys. The
    /// protection the source turns out to have is checked again when the title is planned.
    public init(terms: RequestedTerms?, operatorKeys: Bool) {
        self.init(
            protected: operatorKeys, expires: terms?.kind == .rental || terms?.rentalSeconds != nil,
            playDuration: terms?.playDurationSeconds != nil, playCount: terms?.playCount != nil,
            playTime: terms?.playTimeSeconds != nil)
    }

    /// nil when the title may become one file; else the refusal (`refused`), naming every reason.
    public var refusal: TitleError? {
        var why: [String] = []
        if protected { why.append("its media is encrypted (a protected title)") }
        if expires { why.append("its license expires (a rental)") }
        if playDuration { why.append("its license limits the play duration") }
        if playCount { why.append("its license limits the number of plays") }
        if playTime { why.append("its license limits the total play time") }
        guard !why.isEmpty else { return nil }
        return TitleError(
            code: .refused,
            message: "only a clear title without license limits may become a single file (one file would outlive "
                + "its license): " + why.joined(separator: "; "))
    }
}
