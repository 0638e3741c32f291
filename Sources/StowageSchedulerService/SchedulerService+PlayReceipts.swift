import Foundation
import StowageProtocol
import StowageStore

extension SchedulerService {
    /// A play report with an id (`played`'s `reportID`, `play`'s or `playOn`'s `playID`), applied once: the gateway
    /// sends a report again until a leader acknowledges it (a lost answer, a takeover), so an id already applied
    /// changes nothing — `played` is acknowledged, a play is answered as one under way (``PlaybackComponent``'s
    /// `repeatedPlay`). A new id is applied by `answer` and its receipt kept in the same transaction, so a crash
    /// keeps both or neither. A play refused (not playable) or a refusal counted nothing and keeps no receipt.
    func answerOnce(_ asked: ComponentRequest, id: String, answer: () throws -> ReplyBody) throws -> ReplyBody {
        if try store.hasPlayReceipt(id) {
            switch asked.operation {
            case .play(let token, _), .playOn(let token, _, _):
                guard let playback else { throw TitleError(code: .internal, message: "no playback component") }
                return .play(try playback.repeatedPlay(token))
            default:
                return .ok
            }
        }
        var result: Result<ReplyBody, any Error> = .failure(TitleError(code: .internal, message: "not answered"))
        let token = Self.reportedToken(asked.operation)
        try store.batch {
            result = Result {
                let body = try answer()
                if case .play(let verdict) = body, !verdict.playable { return body }
                try store.addPlayReceipt(id, token: token, now: clock.now())
                return body
            }
        }
        return try result.get()
    }

    /// The title a play report is about.
    private static func reportedToken(_ operation: ClientOperation) -> String {
        switch operation {
        case .played(let token, _, _), .play(let token, _), .playOn(let token, _, _): token
        default: ""
        }
    }
}
