import StowageProtocol
import Testing

@testable import StowageSchedulerCore

@Suite("Peer fill")
struct PeerFillTests {
    @Test func thePeersOwnAnswersSendTheFileToTheOrigin() {
        for code in [ErrorCode.httpStatus, .sourceGone, .integrity, .refused, .unauthorized, .forbidden, .notFound] {
            #expect(PeerFill.next(after: code) == .fromOrigin, "\(code)")
        }
    }

    @Test func anUnreachablePeerOrThisBoxsOwnTroubleIsWaitedFor() {
        for code in [ErrorCode.network, .diskFull, .io, .canceled, .internal] {
            #expect(PeerFill.next(after: code) == .retry, "\(code)")
        }
    }

    @Test func onlyThePeersHashIsAccepted() {
        let hash = String(repeating: "ab", count: 32)
        #expect(PeerFill.accepts(reported: hash, expected: hash))
        #expect(PeerFill.accepts(reported: hash.uppercased(), expected: hash), "hex in either case")
        #expect(!PeerFill.accepts(reported: String(repeating: "cd", count: 32), expected: hash))
        #expect(!PeerFill.accepts(reported: nil, expected: hash), "a copy without a hash is not the peer's")
    }

    @Test func aPeerAnswerCutForItsPaceSendsTheFileToTheOrigin() {
        #expect(PeerFill.next(after: .network, slowAnswer: true) == .fromOrigin)
        #expect(PeerFill.next(after: .network) == .retry, "a peer out of reach is waited for")
    }
}
