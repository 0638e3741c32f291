import StowageTestSupport
import Testing

/// The one check that a content key is not at rest in any form (``Harness/keyAtRest(_:)``): not in the store, its
/// `-wal` or `-shm`, any log, or the title's folder, which must all have been looked in. Call it while the
/// scheduler runs (its `-wal` exists only then). `inlineInStore`: the key came inline in the playlist (a `data:`
/// URI), which the store keeps as the playlist wrote it (docs/threat-model.md, Secrets), so the store's files
/// may hold it; no log and no file of the title may.
func expectKeyNotAtRest(
    _ h: Harness, _ key: [UInt8], title token: String, _ what: String, inlineInStore: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let report = try h.keyAtRest(key)
    let found = report.found.filter { !(inlineInStore && $0.hasPrefix("stowage.sqlite")) }
    #expect(found.isEmpty, "\(what) is at rest in the clear: \(found)", sourceLocation: sourceLocation)
    for place in ["stowage.sqlite", "stowage.sqlite-wal", "stowage.sqlite-shm", "scheduler.log"] {
        #expect(report.searched.contains(place), "\(place) was looked in", sourceLocation: sourceLocation)
    }
    #expect(
        report.searched.contains { $0.hasPrefix("titles/\(token)/") }, "the title's folder was looked in",
        sourceLocation: sourceLocation)
}
