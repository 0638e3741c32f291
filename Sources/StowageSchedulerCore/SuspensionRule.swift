import StowageProtocol

/// The one table of why a title waits: per ``SuspendedReason``, what releases the wait, whether an operator's
/// `resume` may end it, and how it reads to a person. A new reason is one case here (the compiler then asks for its
/// row), plus the component that releases it.
public struct SuspensionRule: Sendable, Equatable {
    /// What ends the wait without the operator.
    public enum Release: Sendable, Equatable {
        /// Nothing: only `resume` does (`paused`).
        case operatorOnly
        /// Free space on the titles' filesystem beyond the cushion (checked every 2 s).
        case spaceBack
        /// The host the title waits for accepts a connection (probed with backoff).
        case hostAnswers
        /// The title's (or the box's) fill window opens (checked every second on the wall clock).
        case windowOpens
        /// The title fits under `--quota` (checked every 2 s, and when a title is unpinned or deleted).
        case roomUnderQuota
    }

    /// What an operator's `resume` does.
    public enum OperatorResume: Sendable, Equatable {
        /// Resumes it (the wait comes back by itself if its cause is still there).
        case allowed
        /// Resumes it only if the concern that owns the wait admits it now; otherwise `refused`, with that
        /// concern's reason (a quota still full, a window still closed).
        case ifAdmitted
    }

    public var reason: SuspendedReason
    public var releasedBy: Release
    public var operatorResume: OperatorResume
    /// The wait in words, for `status` and refusals ("waits for room under the quota").
    public var shown: String

    /// The row of `reason`.
    public static func of(_ reason: SuspendedReason) -> SuspensionRule {
        switch reason {
        case .paused:
            SuspensionRule(
                reason: reason, releasedBy: .operatorOnly, operatorResume: .allowed, shown: "paused by the operator")
        case .diskFull:
            SuspensionRule(
                reason: reason, releasedBy: .spaceBack, operatorResume: .allowed, shown: "waits for free disk space")
        case .network:
            SuspensionRule(
                reason: reason, releasedBy: .hostAnswers, operatorResume: .allowed,
                shown: "waits for its host to answer")
        case .window:
            SuspensionRule(
                reason: reason, releasedBy: .windowOpens, operatorResume: .ifAdmitted,
                shown: "waits for its fill window to open")
        case .quota:
            SuspensionRule(
                reason: reason, releasedBy: .roomUnderQuota, operatorResume: .ifAdmitted,
                shown: "waits for room under the quota")
        }
    }

    /// Every row, in the order of the reasons.
    public static var all: [SuspensionRule] { SuspendedReason.allCases.map(of) }
}
