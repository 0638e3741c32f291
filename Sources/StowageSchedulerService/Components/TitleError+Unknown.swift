import StowageProtocol

extension TitleError {
    /// A token the store does not know: one wording for every operation and component, naming where tokens are
    /// listed.
    static func unknownTitle(_ token: String) -> TitleError {
        TitleError(
            code: .notFound, message: "no title with token '\(token.prefix(64))'; `stowctl list` shows the tokens")
    }
}
