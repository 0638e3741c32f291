import StowageProtocol

/// Events of the box itself (a catalogue applied or refused) go through the same sink as a title's
/// (``TitleDesk/record(_:)``): they are a ``TitleHappening`` whose token is empty. No title's event log holds them
/// and no subscriber is sent them; the receivers get them with no token and no status, ordered among the box's own
/// events (subject ""). A component that observes events skips them with ``isBox``.
extension TitleHappening {
    /// The box's own event of `notice`, in `detail`'s words.
    static func box(_ notice: NotifyEvent.Kind, detail: String) -> TitleHappening {
        TitleHappening("", kind: nil, detail: detail, notice: notice)
    }

    /// Whether the event is the box's own, not a title's.
    var isBox: Bool { token.isEmpty }
}
