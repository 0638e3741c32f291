import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// A component whose files the box writes itself when a title completes (the subtitles' `.vtt`/`.srt`, the single
/// file): rows never fetched, written by the verify task that then checks them. What happens to a report of one, and
/// to one that fails its check, is the same for every such file, so it is written once here.
protocol BoxWrittenFiles: SchedulerComponent {
    var context: ComponentContext { get }
    /// The kind of the rows it writes (``PlannedResource/Kind/isWrittenByBox``).
    var kind: PlannedResource.Kind { get }
    /// The files to write for a title whose other files are all verified, as verify work items; empty when there
    /// are none, or they were added before (once a title).
    func addFiles(_ title: TitleRecord) throws -> [WorkItem]
    /// The event kind recorded when a file cannot be made (`subtitles`, `single-file`).
    var eventKind: String { get }
    /// What the log says when a file cannot be made.
    var notMadeWords: String { get }
}

extension BoxWrittenFiles {
    /// A file that keeps failing its check after being written again is given up after this many writes.
    static var maxWrites: Int { 3 }

    /// A verify report of such a file: true when it is done with (not made: the row becomes a `gap` holding the
    /// reason, and the title may complete without it). A file just written takes its length; the check's verdict
    /// is then the service's, as for any file.
    func applied(_ report: VerifyReport, to r: inout ResourceRecord) throws -> Bool {
        if let why = report.notConverted {
            r.state = .gap
            r.lastError = why
            r.bytes = nil
            try context.store.update(r)
            context.logger.warning(
                "\(notMadeWords)", metadata: ["token": "\(r.token)", "file": "\(r.localPath)", "why": "\(why)"])
            try context.desk.record(TitleHappening(r.token, kind: eventKind, detail: "\(r.localPath): \(why)"))
            return true
        }
        if report.ok, let bytes = report.bytes { r.bytes = bytes }
        return false
    }

    /// Such a file that failed its check: written again (it has no URL to fetch), or given up after ``maxWrites``
    /// (nil: the row is a `gap` with the reason).
    func writeAgain(_ resource: ResourceRecord, reason: String) throws -> WorkItem? {
        var r = resource
        r.attempts += 1
        r.sha256 = nil
        r.bytes = nil
        r.lastError = reason
        r.state = r.attempts >= Self.maxWrites ? .gap : .fetched
        try context.store.update(r)
        guard r.state == .fetched, let id = r.id else { return nil }
        return WorkItem(token: r.token, kind: .verify(resource: id))
    }
}
