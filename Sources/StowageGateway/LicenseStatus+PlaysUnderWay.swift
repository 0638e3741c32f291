import Foundation
import StowageProtocol

extension LicenseStatus {
    /// Whether the license no longer lets a play already under way go on. `expired` also says so of a license whose
    /// plays are used up, which only refuses the next play (the scheduler's `playOn` does): the last play
    /// allowed must not be cut off mid-way by it. Any other end (the expiry passed, no play time left, a clock
    /// rolled back) stops plays under way too.
    func endsPlaysUnderWay(now: Date) -> Bool {
        guard expired else { return false }
        guard playsRemaining == 0 else { return true }
        if let seconds = playTimeRemainingSeconds, seconds <= 0 { return true }
        if let expiresAt, let date = ISO8601DateFormatter().date(from: expiresAt), date <= now { return true }
        // Plays used up, and nothing else that shows here: expired only for new plays (a clock rolled back also
        // shows as `expired` alone; the scheduler refuses every play of such a title, new or not, at `playOn`).
        return false
    }
}
