import StowageProtocol
import StowageStore

/// Bookmarks: the user's, kept per title, and the index points that came with the source (which stay).
extension PlaybackComponent {
    func answerBookmarks(_ operation: ClientOperation) throws -> ReplyBody? {
        switch operation {
        case .bookmarkAdd(let token, let position, let label):
            guard try context.store.title(token) != nil else { throw TitleError.noTitle(token) }
            guard position.isFinite, position >= 0 else {
                throw TitleError(code: .refused, message: "a bookmark position is seconds from the start (0 or more)")
            }
            try context.store.putBookmark(
                BookmarkRecord(
                    token: token, kind: .user, position: position,
                    label: String(label.prefix(200))))
            return .bookmarks(try bookmarks(token))
        case .bookmarkRemove(let token, let position):
            guard try context.store.title(token) != nil else { throw TitleError.noTitle(token) }
            guard try context.store.removeBookmark(token: token, position: position) else {
                let index = try context.store.bookmarks(token: token).contains {
                    $0.kind == .index && $0.position == position
                }
                throw TitleError(
                    code: .refused,
                    message: index
                        ? "the bookmark at \(position) s came with the source and cannot be removed"
                        : "no user bookmark at \(position) s")
            }
            return .bookmarks(try bookmarks(token))
        case .bookmarks(let token):
            guard try context.store.title(token) != nil else { throw TitleError.noTitle(token) }
            return .bookmarks(try bookmarks(token))
        default:
            return nil
        }
    }

    private func bookmarks(_ token: String) throws -> [Bookmark] {
        try context.store.bookmarks(token: token).map {
            Bookmark(position: $0.position, label: $0.label, kind: $0.kind)
        }
    }
}
