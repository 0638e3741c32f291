import StowageTestSupport
import Testing

/// The one check that a content key is not at rest in any form (``Harness/keyAtRest(_:)``): not in the store, its
/// `-wal` or `-shm`, any log, or the title's folder, which must all have been looked in. Call it while the
/// scheduler runs (its `-wal` exists only then).
func expectKeyNotAtRest(
    _ h: Harness, _ key: [UInt8], title token: String, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let report = try h.keyAtRest(key)
    #expect(report.found.isEmpty, "\(what) is at rest in the clear: \(report.found)", sourceLocation: sourceLocation)
    for place in ["stowage.sqlite", "stowage.sqlite-wal", "stowage.sqlite-shm", "scheduler.log"] {
        #expect(report.searched.contains(place), "\(place) was looked in", sourceLocation: sourceLocation)
    }
    #expect(
        report.searched.contains { $0.hasPrefix("titles/\(token)/") }, "the title's folder was looked in",
        sourceLocation: sourceLocation)
}
