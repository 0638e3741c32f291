import StowageProtocol

/// Work that keeps dying with its workers. A worker that traps on a title's input (a playlist, an MPD, a license
/// answer, a container it checks) dies holding that title's task, the task goes to the next worker, and that one dies
/// too: without a count, one title stops every worker of its kind, restarted ones included. After ``threshold``
/// workers died holding the same item, the title is failed with the reason, and the others go on.
///
/// Only items whose work is parsing what a title brings count (resolve, license, reload, verify): a fetch streams
/// bytes for seconds or minutes, and a worker killed from outside (an operator, an OOM kill, a cut cable) then
/// often holds one; no trap in a fetch has ever been repeated by the same bytes.
public struct CrashSuspects: Sendable {
    /// How many workers may die holding the same item before its title is failed.
    public static let threshold = 3
    private var losses: [WorkItem: Int] = [:]

    public init() {}

    /// Items taken back from workers that died; answers those lost ``threshold`` times (then forgotten).
    public mutating func lost(_ items: [WorkItem]) -> [WorkItem] {
        var suspects: [WorkItem] = []
        for item in items where Self.counts(item.kind) {
            let count = losses[item, default: 0] + 1
            if count >= Self.threshold {
                losses[item] = nil
                suspects.append(item)
            } else {
                losses[item] = count
            }
        }
        if losses.count > 10_000 { losses.removeAll() }  // bounded: counts of long-gone titles go
        return suspects
    }

    /// An item that completed: its count starts again.
    public mutating func completed(_ item: WorkItem) {
        if !losses.isEmpty { losses[item] = nil }
    }

    /// A title that went: its counts go.
    public mutating func forget(_ token: String) {
        losses = losses.filter { $0.key.token != token }
    }

    /// Whether a worker dying with this kind of work points at the work.
    static func counts(_ kind: WorkItem.Kind) -> Bool {
        switch kind {
        case .resolve, .license, .reload, .verify: true
        case .fetch: false
        }
    }

    /// Why a title whose item died with ``threshold`` workers in a row is failed, and what the operator may do.
    public static func workersDied(of item: WorkItem) -> TitleError {
        TitleError(
            code: .internal,
            message: "\(threshold) \(item.kind.workerKind.rawValue) workers died while handling its \(item.kind) task "
                + "(its input likely crashes them: their logs say where); the title was failed so that the other "
                + "titles go on; delete it, or resume it once the cause is fixed")
    }

    /// Why the title whose handling (`doing`) crashed the previous run of the scheduler is failed.
    public static func schedulerCrashed(doing: String) -> TitleError {
        TitleError(
            code: .internal,
            message: "the scheduler crashed while handling \(doing) (the log of the previous run says where): "
                + "the title was failed so that the box keeps running; delete it, or resume it once the cause is fixed")
    }
}
