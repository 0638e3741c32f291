import Foundation
import StowageProtocol
import Testing

@Suite("Typed scheduler requests")
struct SchedulerRequestTests {
    let status = TitleStatus(
        token: "t", url: "http://h/m.m3u8", name: nil, state: .requested, progress: 0, bytesDownloaded: 0,
        bytesExpected: nil, segmentsDone: 0, segmentsTotal: 0, requestedAt: nil, startedAt: nil, endedAt: nil,
        license: nil, localPlaylist: nil, playableOffline: false, error: nil)

    /// The wire is what it was: the typed request sends the same operation.
    @Test func theOperationOnTheWireIsUnchanged() {
        let list: SchedulerCall<[TitleStatus]> = .list(state: .completed, after: "a", limit: 5)
        #expect(list.operation == .list(state: .completed, after: "a", limit: 5))
        let key: SchedulerCall<[UInt8]> = .key(token: "t", index: 2)
        #expect(key.operation == .key(token: "t", index: 2))
        let delete: SchedulerCall<Void> = .delete(token: "t")
        #expect(delete.operation == .delete(token: "t"))
    }

    @Test func theReplyIsTypedAndOtherKindsAreUnexpected() throws {
        let request: SchedulerCall<TitleStatus> = .status(token: "t")
        #expect(try request.decode(.title(status)) == status)
        #expect(throws: ReplyError.unexpected(.titles([status]))) { try request.decode(.titles([status])) }
        let key: SchedulerCall<[UInt8]> = .key(token: "t", index: 0)
        #expect(try key.decode(.key(Data([1, 2, 3]).base64EncodedString())) == [1, 2, 3])
        #expect(throws: ReplyError.unexpected(.key("not base64!"))) { try key.decode(.key("not base64!")) }
    }

    @Test func theSchedulersErrorKeepsItsCodeAndReadsAsBefore() {
        let refusal = TitleError(code: .notFound, message: "no title t")
        let request: SchedulerCall<Void> = .delete(token: "t")
        #expect(throws: ReplyError.refused(refusal)) { try request.decode(.error(refusal)) }
        #expect(ReplyError.refused(refusal).description == "error [not-found]: no title t")
    }
}
