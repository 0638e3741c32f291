import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import StowageSubtitles

/// Subtitles a person can read: when every file of a title is verified, its subtitle tracks (segmented WebVTT,
/// `wvtt`/`stpp` in fMP4, TTML or WebVTT sidecars) are also written as `subtitles/<lang>.vtt` and `.srt` in its
/// folder before it completes. Each is a file of the title like any other (a resource row, hashed, verified at
/// rest, counted in its size), of kind ``PlannedResource/Kind/subtitleText``: never fetched, it is written by the
/// verify task that then checks it (``SubtitleConversion``, an integrity worker). Subtitles that cannot be
/// converted do not hold the title back: the file is left out (a `gap` row with the reason, shown in `status` as
/// `subtitleFiles` and recorded as an event) and the title completes.
///
/// A stage of the pipeline, consulted by the service's completion check and its verify results
/// (``addFiles(_:)``, ``applied(_:to:)``, ``writeAgain(_:reason:)``).
final class SubtitlesComponent: SchedulerComponent, BoxWrittenFiles {
    let kind = PlannedResource.Kind.subtitleText
    let eventKind = "subtitles"
    let notMadeWords = "subtitles not converted"
    let name = "subtitles"
    let context: ComponentContext

    init(context: ComponentContext) { self.context = context }

    /// The files to write for a title whose other files are all verified, as verify work items; empty when it has
    /// no subtitles or they were added before (once a title: a verify run later finds them as files).
    func addFiles(_ title: TitleRecord) throws -> [WorkItem] {
        guard try context.store.resources(token: title.token, kind: .subtitleText).isEmpty else { return [] }
        let folder = context.home.titleDirectory(title.token).path
        let languages = TitleSubtitles.languages(inTitleFolder: folder)
        guard !languages.isEmpty else { return [] }
        let paths = languages.flatMap { ["\(TitleSubtitles.folder)/\($0).vtt", "\(TitleSubtitles.folder)/\($0).srt"] }
        let rows = try context.store.addWrittenFiles(token: title.token, paths: paths, kind: .subtitleText)
        return rows.compactMap { $0.id.map { WorkItem(token: title.token, kind: .verify(resource: $0)) } }
    }

    /// The verify work of a subtitle file not written yet (no hash recorded): write, then check. Nil for any other
    /// file, or one written (it is checked as it is).
    static func conversionWork(_ r: ResourceRecord) -> VerifyWork? {
        guard r.kind == .subtitleText, r.sha256 == nil, r.localPath.hasPrefix(TitleSubtitles.folder + "/") else {
            return nil
        }
        let name = r.localPath.dropFirst(TitleSubtitles.folder.count + 1)
        var work = VerifyWork(
            path: "\(r.token)/\(r.localPath)", expectedBytes: 0, sha256: nil, container: .other,
            encrypted: false)
        work.subtitles = SubtitleConversion(language: String(name.dropLast(4)), srt: name.hasSuffix(".srt"))
        return work
    }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        guard let rows = try? context.store.resources(token: title.token, kind: .subtitleText), !rows.isEmpty else {
            return
        }
        status.subtitleFiles = rows.map { r in
            switch r.state {
            case .verified: SubtitleFileStatus(file: r.localPath, state: .written)
            case .gap: SubtitleFileStatus(file: r.localPath, state: .notConverted, message: r.lastError)
            default: SubtitleFileStatus(file: r.localPath, state: .pending)
            }
        }
    }
}
