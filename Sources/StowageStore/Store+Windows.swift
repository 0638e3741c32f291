import GRDB
import StowageProtocol

/// What the fill-window check reads of a title a window may hold or release.
public struct WindowedTitle: Sendable, Equatable {
    public var token: String
    public var state: TitleState
    public var suspendedReason: SuspendedReason?
    /// Its own windows (`submit --window`); nil: the box's.
    public var fillWindow: String?
}

extension Store {
    /// Titles a fill window may hold or release now, in request order: unfinished, not `--now`, not recordings,
    /// fetching (`requested`, `licensing`, `downloading`) or `suspended`, with a window of their own, or any of them
    /// when the box has one (`boxWindow`), and any waiting for a window (released when none applies any more, e.g.
    /// the box's `--fill-window` was dropped at a restart). Four columns each: the scheduler reads them every second.
    public func windowedTitles(boxWindow: Bool) throws -> [WindowedTitle] {
        try db.read { db in
            let sql = """
                SELECT token, state, suspendedReason, fillWindow FROM title
                WHERE state IN ('requested', 'licensing', 'downloading', 'suspended')
                AND fetchNow = 0 AND record IS NULL
                AND (fillWindow IS NOT NULL OR ? = 1 OR suspendedReason = 'window')
                ORDER BY requestedAt, token
                """
            var result: [WindowedTitle] = []
            for row in try db.rows(sql, [boxWindow]) {
                let token: String = row[0]
                let raw: String = row[1]
                guard let state = TitleState(rawValue: raw) else {
                    throw DatabaseError(message: "title \(token) is in a state this version does not know: '\(raw)'")
                }
                let reason: String? = row[2]
                result.append(
                    WindowedTitle(
                        token: token, state: state, suspendedReason: reason.flatMap(SuspendedReason.init(rawValue:)),
                        fillWindow: row[3]))
            }
            return result
        }
    }
}
