import Foundation
import Testing

@testable import StowageBundle

@Suite("Bundle signature and trust")
struct BundleSignatureTests {
    let box = BoxIdentity()

    func signed() throws -> (bytes: Data, signature: String) {
        let bytes = try Fixtures.manifest(box: box, files: []).encoded()
        return (bytes, try BundleSignature.sign(bytes, with: box))
    }

    @Test func aTrustedSignatureOpensTheManifest() throws {
        let (bytes, signature) = try signed()
        let manifest = try BundleSignature.verify(
            manifestBytes: bytes, signatureText: signature, trusted: [box.publicKey], trustAny: false)
        #expect(manifest == Fixtures.manifest(box: box, files: []))
        #expect(manifest.box.id.count == 16)
    }

    @Test func oneChangedByteOfBundleJSONIsRefused() throws {
        let (bytes, signature) = try signed()
        var tampered = bytes
        let index = try #require(tampered.firstRange(of: Data("\"playCount\" : 2".utf8))).upperBound - 1
        tampered[index] = UInt8(ascii: "0")
        #expect(throws: BundleProblem.self) {
            try BundleSignature.verify(manifestBytes: tampered, signatureText: signature, trusted: [], trustAny: true)
        }
        do {
            _ = try BundleSignature.verify(
                manifestBytes: tampered, signatureText: signature, trusted: [], trustAny: true)
        } catch {
            #expect(error.code == .signature && error.file == "bundle.json")
        }
    }

    @Test func anUntrustedSignerIsRefusedUnlessTrustAny() throws {
        let (bytes, signature) = try signed()
        let other = BoxIdentity().publicKey
        do {
            _ = try BundleSignature.verify(
                manifestBytes: bytes, signatureText: signature, trusted: [other], trustAny: false)
            Issue.record("an untrusted signer was accepted")
        } catch {
            #expect(error.code == .untrusted && error.message.contains("--trust"))
        }
        _ = try BundleSignature.verify(manifestBytes: bytes, signatureText: signature, trusted: [], trustAny: true)
    }

    @Test func aManifestResignedByAnotherBoxUnderTheSameIdIsRefused() throws {
        // An attacker re-signs a changed manifest with its own key but claims the trusted box's id.
        let attacker = BoxIdentity()
        var manifest = Fixtures.manifest(box: attacker, files: [])
        manifest.box.id = box.publicKey.id
        let bytes = try manifest.encoded()
        let signature = try BundleSignature.sign(bytes, with: attacker)
        #expect(throws: BundleProblem.self) {
            try BundleSignature.verify(
                manifestBytes: bytes, signatureText: signature, trusted: [box.publicKey], trustAny: false)
        }
    }

    @Test func aMissingSignatureIsRefused() throws {
        let (bytes, _) = try signed()
        do {
            _ = try BundleSignature.verify(manifestBytes: bytes, signatureText: nil, trusted: [], trustAny: true)
            Issue.record("an unsigned bundle was accepted")
        } catch {
            #expect(error.code == .signature && error.file == "bundle.sig")
        }
    }

    @Test func theIdentityIsMadeOnceAndKeptPrivate() throws {
        let home = try Fixtures.temporaryFolder()
        let first = try BoxIdentity.loadOrCreate(home: home)
        let again = try BoxIdentity.loadOrCreate(home: home)
        #expect(first.publicKey == again.publicKey)
        let path = home.appendingPathComponent("box.key").path
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0)
        // The public key file round-trips.
        let file = home.appendingPathComponent("box.pub")
        try Data(first.publicKey.fileText().utf8).write(to: file)
        #expect(try BoxPublicKey.read(file: file) == first.publicKey)
    }
}
