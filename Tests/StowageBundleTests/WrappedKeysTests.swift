import Foundation
import Testing

@testable import StowageBundle

@Suite("Content keys wrapped for another box")
struct WrappedKeysTests {
    let sender = BoxIdentity()
    let receiver = BoxIdentity()
    let keys: [(name: String, key: [UInt8])] = [("0", Array(repeating: 1, count: 16)), ("kid:ab", Array(0..<16))]

    @Test func theReceivingBoxOpensEveryKey() throws {
        let wrapped = try WrappedKeys.seal(keys, token: "tok1", for: receiver.publicKey)
        #expect(wrapped.forBox == receiver.publicKey.id)
        let opened = try wrapped.open(with: receiver, token: "tok1")
        #expect(opened.map(\.name) == ["0", "kid:ab"])
        #expect(opened.map(\.key) == keys.map(\.key))
        // No key is in the bundle in the clear.
        let text = String(decoding: try JSONEncoder().encode(wrapped), as: UTF8.self)
        #expect(!text.contains(Data(keys[1].key).base64EncodedString()))
    }

    @Test func anotherBoxOpensNothing() throws {
        let wrapped = try WrappedKeys.seal(keys, token: "tok1", for: receiver.publicKey)
        do {
            _ = try wrapped.open(with: sender, token: "tok1")
            Issue.record("keys for another box opened")
        } catch {
            #expect(error.code == .keys && error.message.contains("not this box"))
        }
        // Even claiming the receiver's id, a box without its private key cannot open them.
        var forged = wrapped
        forged.forBox = sender.publicKey.id
        #expect(throws: BundleProblem.self) { try forged.open(with: sender, token: "tok1") }
    }

    @Test func aKeyMovedToAnotherTitleOrNameDoesNotOpen() throws {
        let wrapped = try WrappedKeys.seal(keys, token: "tok1", for: receiver.publicKey)
        #expect(throws: BundleProblem.self) { try wrapped.open(with: receiver, token: "tok2") }
        var swapped = wrapped
        swapped.entries[0].name = "1"
        #expect(throws: BundleProblem.self) { try swapped.open(with: receiver, token: "tok1") }
    }
}
