/// The box's disk as `stowctl stats` and the console show it: what the titles hold, what the filesystem has free,
/// and the limits the scheduler keeps (`--quota`, `--disk-cushion`).
public struct DiskFigures: Codable, Sendable, Equatable {
    /// Bytes the titles hold as the quota counts them (a completed title its files, one under way its estimate).
    public var usedBytes: Int64
    /// Bytes free on the filesystem that holds `titles/` (nil: it could not be read).
    public var freeBytes: Int64?
    /// `--quota` (nil: none).
    public var quotaBytes: Int64?
    /// `--disk-cushion`: bytes always left free.
    public var cushionBytes: Int64

    public init(usedBytes: Int64, freeBytes: Int64?, quotaBytes: Int64?, cushionBytes: Int64) {
        self.usedBytes = usedBytes
        self.freeBytes = freeBytes
        self.quotaBytes = quotaBytes
        self.cushionBytes = cushionBytes
    }
}
