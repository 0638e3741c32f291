/// The gateway's reports of play time (`played`) not yet acknowledged by a scheduler, oldest first.
///
/// Each report has its own id and keeps it however often it is sent: one whose answer was lost, or sent while no
/// scheduler leads (a takeover), is sent again with the same id, and the scheduler applies an id once (its play
/// receipts), so play time is neither lost nor counted twice. Kept in memory: a gateway that stops takes what
/// was not acknowledged with it (its final report at a graceful stop tries once more). At most ``limit`` are kept;
/// past it the oldest is dropped (and said in the log): a scheduler gone for that long is an operator's matter.
struct PlayReports: Sendable {
    struct Report: Sendable, Equatable {
        var id: String
        var token: String
        var seconds: Double
    }

    /// The reports waiting, oldest first.
    private(set) var waiting: [Report] = []
    /// How many reports are kept at most.
    let limit: Int

    init(limit: Int = 10_000) { self.limit = limit }

    /// Adds a report; returns the oldest one dropped to stay within ``limit``, if any.
    mutating func add(_ report: Report) -> Report? {
        waiting.append(report)
        return waiting.count > limit ? waiting.removeFirst() : nil
    }

    /// A scheduler acknowledged (or refused for good) the report `id`: it is not sent again.
    mutating func settled(_ id: String) { waiting.removeAll { $0.id == id } }
}
