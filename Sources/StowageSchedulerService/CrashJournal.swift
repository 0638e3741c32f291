import CSystemShims
import Foundation

/// Which title the scheduler is handling, kept in a small file so that a trap while handling one title is not
/// repeated at every start: the crash handler (``stowage_crash_journal_install``) marks the file, and the next start
/// fails that title with the reason instead of handing it the same work again.
///
/// Why a file and not the store: the store's batch is rolled back when the process dies, and with it anything that
/// said what was under way. A `kill -9` runs no handler, so a title handled at that moment is resumed as usual: only a
/// trap, an abort or a memory fault marks the title.
///
/// The file holds one record at offset 0: a state byte (`-` idle, `+` handling, `!` crashed), then the token and
/// what was being done, tab-separated (none while idle). Each mark is one `pwrite` (no `fsync`: the page cache outlives
/// the process, and a machine crash is not what this guards against).
public final class CrashJournal {
    /// What the previous run was handling when it crashed, read at open.
    public struct Crash: Sendable, Equatable {
        public var token: String
        public var doing: String
    }

    /// The previous run's crash, if it died of a trap while handling a title.
    public let previousCrash: Crash?
    private let fd: Int32
    private var marked = false

    /// Opens (or creates, 0600) the journal at `path`, reads what the last run left and installs the crash handler.
    public init(path: String) throws {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, "errno": errno])
        }
        var buffer = [UInt8](repeating: 0, count: Self.recordSize)
        let count = pread(fd, &buffer, Self.recordSize, 0)
        previousCrash = count > 1 ? Self.crash(in: Array(buffer.prefix(count))) : nil
        _ = pwrite(fd, "-\n", 2, 0)
        _ = ftruncate(fd, 2)
        if stowage_crash_journal_install(fd) != 0 {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, "errno": errno])
        }
    }

    deinit {
        stowage_crash_journal_release(fd)
        close(fd)
    }

    /// The scheduler starts handling `token` (`doing` says what, for the reason shown if it crashes).
    public func handling(_ token: String, _ doing: String) {
        var record = Array(("+" + token + "\t" + doing).utf8.prefix(Self.recordSize - 1))
        record.append(0x0A)
        _ = pwrite(fd, record, record.count, 0)
        marked = true
    }

    /// Nothing is being handled now.
    public func idle() {
        guard marked else { return }
        _ = pwrite(fd, "-\n", 2, 0)  // a crash now marks "!\n": no title
        marked = false
    }

    /// The crash a record tells of: `!`, a token of at most 64 characters, a tab, what was being done.
    static func crash(in record: [UInt8]) -> Crash? {
        guard record.first == UInt8(ascii: "!") else { return nil }
        let text = String(decoding: record.dropFirst(), as: UTF8.self)
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        guard let token = parts.first, !token.isEmpty, token.count <= 64 else { return nil }
        return Crash(token: String(token), doing: parts.count > 1 ? String(parts[1].prefix(200)) : "its work")
    }

    /// The most bytes a record takes.
    static let recordSize = 512
}
