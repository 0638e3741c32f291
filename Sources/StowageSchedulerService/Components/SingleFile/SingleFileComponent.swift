import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// One file per title (`submit --file mp4|mkv`, a catalogue entry's `file`): when every file of a title is
/// verified, the box also writes it as `title.mp4` or `title.mkv` in its folder before it completes. The same
/// mechanism as the subtitles the box writes (``SubtitlesComponent``): a resource row of its own kind
/// (``PlannedResource/Kind/singleFile``), never fetched, written by the verify task that then checks it (an
/// integrity worker, ``SingleFileOrder``), hashed, verified at rest, counted in the title's size and under the quota.
///
/// A file that cannot be made does not hold the title back: the row is a `gap` holding the reason (shown in
/// `status --json` as `file`, and recorded as an event), and the title completes with its HLS/DASH copy whole.
/// Before anything is written the quota is asked for room for it (the file is about as large as the copy); a
/// refusal names the file. Which titles may become one file at all is ``SingleFileClearance``'s, asked at submit
/// and when the title is planned.
final class SingleFileComponent: SchedulerComponent, BoxWrittenFiles {
    let kind = PlannedResource.Kind.singleFile
    let eventKind = "single-file"
    let notMadeWords = "single file not made"
    let name = "single-file"
    let context: ComponentContext
    /// The quota, asked for room before the file is written (nil: no quota set).
    let quota: () -> QuotaComponent?

    init(context: ComponentContext, quota: @escaping () -> QuotaComponent?) {
        self.context = context
        self.quota = quota
    }

    /// The file to write for a title whose other files are all verified, as a verify work item; empty when none
    /// was asked for, it was added before (once a title), or the quota has no room for it (then the row is a
    /// `gap` naming the file and why, and the title completes without it).
    func addFiles(_ title: TitleRecord) throws -> [WorkItem] {
        guard let format = title.singleFile,
            try context.store.resources(token: title.token, kind: .singleFile).isEmpty
        else { return [] }
        let rows = try context.store.addWrittenFiles(token: title.token, paths: [format.fileName], kind: .singleFile)
        guard var row = rows.first, let id = row.id else { return [] }
        // The file holds the copy's media again: room for the title's bytes twice.
        let stored = try context.store.resources(token: title.token).reduce(Int64(0)) { $0 + ($1.bytes ?? 0) }
        if let reason = try quota()?.refusal(title.token, need: stored * 2) {
            let size = ByteSize(bytes: stored).description
            let why =
                "[\(ErrorCode.quota.rawValue)] \(format.fileName) (about \(size)) would not fit under the quota: "
                + reason
            row.state = .gap
            row.lastError = why
            try context.store.update(row)
            context.logger.warning("single file not made", metadata: ["token": "\(title.token)", "why": "\(why)"])
            try context.desk.record(TitleHappening(title.token, kind: "single-file", detail: why))
            return []
        }
        return [WorkItem(token: title.token, kind: .verify(resource: id))]
    }

    /// The verify work of a single file not written yet (no hash recorded): write, then check. Nil for any other
    /// file.
    static func writeWork(_ r: ResourceRecord, title: TitleRecord) -> VerifyWork? {
        guard r.kind == .singleFile, r.sha256 == nil, let format = SingleFileFormat(path: r.localPath) else {
            return nil
        }
        var work = VerifyWork(
            path: "\(r.token)/\(r.localPath)", expectedBytes: 0, sha256: nil, container: .other, encrypted: false)
        work.singleFile = SingleFileOrder(
            format: format, entry: title.localPlaylist ?? title.manifestName ?? "master.m3u8")
        return work
    }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        guard let format = title.singleFile else { return }
        let path = context.home.titleDirectory(title.token).appendingPathComponent(format.fileName).path
        guard let r = (try? context.store.resources(token: title.token, kind: .singleFile))?.first else {
            status.file = SingleFileStatus(format: format, path: path, state: .pending)
            return
        }
        switch r.state {
        case .verified: status.file = SingleFileStatus(format: format, path: path, state: .written, bytes: r.bytes)
        case .gap: status.file = SingleFileStatus(format: format, path: path, state: .notMade, message: r.lastError)
        default: status.file = SingleFileStatus(format: format, path: path, state: .pending)
        }
    }
}
