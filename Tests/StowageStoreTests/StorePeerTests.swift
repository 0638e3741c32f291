import Foundation
import StowageProtocol
import Testing

@testable import StowageStore

/// What the store keeps of peer fill: the peer a title fills from, which files come from it (with the hash they
/// must have), how many verified files did, and which devices are peer boxes.
@Suite("Store: peer fill")
struct StorePeerTests {
    @Test(arguments: Engine.allCases) func filesFromThePeerAreCountedOnlyWhileTakenFromIt(_ engine: Engine) throws {
        let store = try engine.store()
        var title = StoreTests().title("t1")
        title.peer = PeerSource(url: "http://box-a:8480", id: "film", secret: "wrapped")
        try store.insert(title)
        #expect(try store.title("t1")?.peer == title.peer)
        try store.savePlan(token: "t1", plan: StoreTests().plan(3))
        let hash = String(repeating: "AB", count: 32)
        try store.expectFromPeer(token: "t1", hashes: [0: hash, 2: hash])
        var files = try store.resources(token: "t1")
        #expect(files.map(\.peerSHA256) == [hash.lowercased(), nil, hash.lowercased()])
        #expect(try store.peerSHA256(ofResource: files[1].id!) == nil)
        #expect(try store.peerSHA256(ofResource: files[2].id!) == hash.lowercased())
        for id in files.compactMap(\.id) { try store.markVerified(id: id, bytes: 1, contentLength: 1, sha256: hash) }
        #expect(try store.filesFromPeer(token: "t1") == 2)
        files[2].peerSHA256 = nil  // taken from the origin instead
        try store.update(files[2])
        #expect(try store.filesFromPeer(token: "t1") == 1)
    }

    @Test(arguments: Engine.allCases) func aPeerBoxIsADeviceThatIsMarkedSo(_ engine: Engine) throws {
        let store = try engine.store()
        try store.putDevice(DeviceRecord(name: "tablet", secretHash: Data([1]), createdAt: 1))
        try store.putDevice(DeviceRecord(name: "box-b", secretHash: Data([2]), createdAt: 1, peer: true))
        #expect(try store.device("tablet")?.peer == false)
        #expect(try store.device("box-b")?.peer == true)
    }
}
