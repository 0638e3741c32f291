import Foundation
import Testing

@testable import StowageBundle

@Suite("Content keys wrapped for another box")
struct WrappedKeysTests {
    let sender = BoxIdentity()
    let receiver = BoxIdentity()
    let keys: [(name: String, key: [UInt8])] = [("0", Array(repeating: 1, count: 16)), ("kid:ab", Array(0..<16))]
    let token = Fixtures.token
    var binding: Data { Fixtures.manifest(box: sender, files: []).keyBinding() }

    @Test func theReceivingBoxOpensEveryKey() throws {
        let wrapped = try WrappedKeys.seal(keys, token: token, binding: binding, for: receiver.publicKey)
        #expect(wrapped.forBox == receiver.publicKey.id)
        let opened = try wrapped.open(with: receiver, token: token, binding: binding)
        #expect(opened.map(\.name) == ["0", "kid:ab"])
        #expect(opened.map(\.key) == keys.map(\.key))
        // No key is in the bundle in the clear.
        let text = String(decoding: try JSONEncoder().encode(wrapped), as: UTF8.self)
        #expect(!text.contains(Data(keys[1].key).base64EncodedString()))
    }

    @Test func anotherBoxOpensNothing() throws {
        let wrapped = try WrappedKeys.seal(keys, token: token, binding: binding, for: receiver.publicKey)
        do {
            _ = try wrapped.open(with: sender, token: token, binding: binding)
            Issue.record("keys for another box opened")
        } catch {
            #expect(error.code == .keys && error.message.contains("not this box"))
        }
        // Even claiming the receiver's id, a box without its private key cannot open them.
        var forged = wrapped
        forged.forBox = sender.publicKey.id
        #expect(throws: BundleProblem.self) { try forged.open(with: sender, token: token, binding: binding) }
    }

    @Test func aKeyMovedToAnotherTitleOrNameDoesNotOpen() throws {
        let wrapped = try WrappedKeys.seal(keys, token: token, binding: binding, for: receiver.publicKey)
        #expect(throws: BundleProblem.self) {
            try wrapped.open(with: receiver, token: "0123456789abcdee", binding: binding)
        }
        var swapped = wrapped
        swapped.entries[0].name = "1"
        #expect(throws: BundleProblem.self) { try swapped.open(with: receiver, token: token, binding: binding) }
    }

    @Test func keysUnderRewrittenTermsOrAnotherExportDoNotOpen() throws {
        let manifest = Fixtures.manifest(box: sender, files: [])
        let wrapped = try WrappedKeys.seal(keys, token: token, binding: manifest.keyBinding(), for: receiver.publicKey)
        #expect(try wrapped.open(with: receiver, token: token, binding: manifest.keyBinding()).count == 2)
        var purchase = manifest  // a rental made a purchase, re-signed by anyone
        purchase.terms?.kind = .purchase
        purchase.terms?.expiresAt = nil
        var replayed = manifest  // the plays reset
        replayed.usage?.playCount = 0
        var another = manifest  // the keys carried into another export
        another.exportID = "feedfacecafebee0"
        var unmoved = manifest
        unmoved.moved = true
        for changed in [purchase, replayed, another, unmoved] {
            #expect(changed.keyBinding() != manifest.keyBinding())
            do {
                _ = try wrapped.open(with: receiver, token: token, binding: changed.keyBinding())
                Issue.record("keys opened under changed terms")
            } catch {
                #expect(error.code == .keys && error.message.contains("does not open"))
            }
        }
    }
}
