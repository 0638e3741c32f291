import StowageProtocol

extension TitleError {
    /// `not-found` for a token no title has (an operator's typo, a title deleted or evicted meanwhile).
    static func noTitle(_ token: String) -> TitleError {
        TitleError(
            code: .notFound, message: "no title with token '\(token.prefix(64))'; `stowctl list` shows the tokens")
    }
}
