import Foundation
import StowageOfflineCopy
import StowageProtocol

/// Writes a title's single file (`title.mp4`/`title.mkv`, `submit --file`) when the scheduler asks for it, which is
/// once every other file of the title is verified: the offline copy it reads is then whole and checked. The same
/// step as ``SubtitleWriter`` (and in the same worker, for the same reasons: the written file is read back, hashed
/// and reported like any fetched file; it is a read of the title's folder that needs no network). The muxing is
/// ``Remuxer``'s, the one `stowctl remux` runs, so the box's file and an operator's are made alike.
enum SingleFileWriter {
    /// Writes `order` to `path` (inside the title folder `directory`): the length written, or why it could not be
    /// made (ffmpeg missing or failing, quoted; a full disk). The file appears only once complete (``Remuxer``
    /// writes `NAME.part` and renames it), and is flushed to the disk before it is reported.
    static func write(_ order: SingleFileOrder, to path: String, directory: String) -> Result<Int64, RemuxError> {
        let remuxer = Remuxer(directory: directory, entry: order.entry, format: order.format)
        do {
            let report = try remuxer.write(to: path) { _ in }
            if let handle = FileHandle(forWritingAtPath: path) {
                try? handle.synchronize()
                try? handle.close()
            }
            return .success(report.bytes)
        } catch {
            return .failure(error)
        }
    }
}
