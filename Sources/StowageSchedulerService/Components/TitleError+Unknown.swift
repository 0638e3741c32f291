import StowageProtocol

extension TitleError {
    /// A client named a title this box does not hold: the same words from the service and every component.
    static func unknownTitle(_ token: String) -> TitleError {
        TitleError(
            code: .notFound, message: "no title with token '\(token.prefix(64))'; `stowctl list` shows the tokens")
    }
}
