import StowageProtocol

/// What the library shows of a title, the one rule for `/`, `/api/titles` and `/events`: a viewer is there to
/// watch, so a title appears only when it can be played now (``Shelf/playable``) or is on its way without anyone
/// having to act (``Shelf/coming``, no play button). Failed, waiting (paused, over the quota, out of disk, waiting
/// for the network or its fill window), licensed-only, expired and unplayable titles are the operator's business:
/// their reasons and tokens never reach a device (the admin's API and the console show them).
public enum LibraryVisibility {
    /// Where a shown title sits in the library.
    public enum Shelf: String, Sendable, Codable {
        /// Completed, playable offline, its license allows a play now.
        case playable
        /// Being fetched (or checked, or recorded) with nothing wrong: shown without a play button. A title only
        /// requested (not resolved yet, or queued for a download slot) is not shown yet: it may still fail at its
        /// first request, and a viewer would see it come and go.
        case coming
    }

    /// The title's shelf, or nil when a viewer does not see it.
    public static func shelf(_ status: TitleStatus) -> Shelf? {
        if status.license?.expired == true { return nil }
        if status.state == .completed { return status.playableOffline ? .playable : nil }
        // A title with an error is waiting for someone or something (a host unreachable, a retry): not coming.
        guard status.error == nil else { return nil }
        switch status.state {
        case .downloading, .verifying, .recording: return .coming
        case .requested, .licensing, .licensed, .suspended, .canceled, .failed, .completed: return nil
        }
    }

    /// Whether `principal` sees `status` on the API and the event stream: the admin sees every title there (the
    /// console is built on them); anyone else only what the library shows.
    public static func isVisible(_ status: TitleStatus, to principal: Principal) -> Bool {
        principal.isAdmin || shelf(status) != nil
    }
}
