import StowageProtocol

/// Something that happened to a title, recorded once through ``TitleDesk/record(_:)``: the one sink that writes
/// the title's event log, tells the subscribers (`watch`, the gateway), hands it to the components (the
/// notification outbox among them) and logs it, in the transaction of the change it reports.
struct TitleHappening: Sendable, Equatable {
    /// The title (for a title whose record is about to go, its token still names it in the events).
    var token: String
    /// The kind in the title's event log (`state`, `planned`, `peer`, `evicted`, …); nil: not written there.
    var kind: String?
    /// What happened, in words.
    var detail: String
    /// What `--notify` receivers are told (nil: nothing), and in which words when not `detail`'s (a submit tells
    /// them "requested", the log keeps the URL).
    var notice: NotifyEvent.Kind?
    var noticeDetail: String?
    /// What the subscribers are sent (`state`, `license`; nil: nothing).
    var published: String?

    init(
        _ token: String, kind: String?, detail: String, notice: NotifyEvent.Kind? = nil, noticeDetail: String? = nil,
        published: String? = nil
    ) {
        self.token = token
        self.kind = kind
        self.detail = detail
        self.notice = notice
        self.noticeDetail = noticeDetail
        self.published = published
    }

    /// A move of the lifecycle (or a wait taken): logged, told to receivers and subscribers.
    static func state(_ token: String, _ detail: String) -> TitleHappening {
        TitleHappening(token, kind: "state", detail: detail, notice: .state, published: "state")
    }

    /// A change of the title's license or keys: logged and told to subscribers.
    static func license(_ token: String, kind: String = "license", _ detail: String) -> TitleHappening {
        TitleHappening(token, kind: kind, detail: detail, published: "license")
    }
}
