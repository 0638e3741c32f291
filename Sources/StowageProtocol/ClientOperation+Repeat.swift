/// Which requests a client may send again to another scheduler after it got no answer: the one rule
/// ``SchedulerClient`` follows when a scheduler falls silent mid-request (a takeover, a frozen leader).
///
/// A request whose answer was lost may have been applied. Sending it again is harmless only when applying it twice
/// changes nothing: reads, and the play reports that carry an id the scheduler applies once (``receiptID``).
extension ClientOperation {
    /// The id of a play report (`played`'s `reportID`, `play`'s and `playOn`'s `playID`): the scheduler keeps
    /// it (its play receipts) and applies a request with an id it holds once. nil: no id, applied every time.
    public var receiptID: String? {
        switch self {
        case .played(_, _, let id), .play(_, let id), .playOn(_, _, let id): id
        default: nil
        }
    }

    /// Whether sending this request again (after its answer was lost) cannot change anything twice.
    public var isSafeToRepeat: Bool {
        switch self {
        case .status, .list, .workers, .license, .bookmarks, .stats, .boxKey, .bundleJob, .playable, .key, .devices,
            .lookup, .catalogStatus, .notifyStatus, .peerManifest, .evictable, .fetchScope, .subscribe, .unsubscribe,
            .authenticate:
            return true
        case .limits(let change):
            return change == nil
        case .played, .play, .playOn:
            return receiptID != nil
        case .submit, .cancel, .pause, .resume, .delete, .stop, .renew, .bookmarkAdd, .bookmarkRemove, .verify, .gc,
            .exportTitle, .importBundle, .deviceAdd, .deviceRevoke, .deviceSign, .devicePair, .pairRedeem,
            .catalogApply, .pin:
            return false
        }
    }
}
