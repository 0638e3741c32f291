@preconcurrency import Crypto
import Foundation

/// The detached signature of a bundle: Ed25519 over the exact bytes of `bundle.json`, kept in `bundle.sig`.
/// Detached (not an envelope) so `bundle.json` stays a plain file a person can read, and what is verified is
/// byte for byte what was written — no re-encoding between signing and checking.
public enum BundleSignature {
    /// The text of `bundle.sig` for `manifestBytes`.
    public static func sign(_ manifestBytes: Data, with identity: BoxIdentity) throws -> String {
        try identity.signing.signature(for: manifestBytes).base64EncodedString() + "\n"
    }

    /// Checks `bundle.sig` over `bundle.json` and who signed it, then returns the manifest. The signer must be one
    /// of `trusted` unless `trustAny`. The order matters: nothing of the manifest is believed before its bytes
    /// verify against the key it names, and the key is only accepted if trusted.
    public static func verify(
        manifestBytes: Data, signatureText: String?, trusted: Set<BoxPublicKey>, trustAny: Bool
    ) throws(BundleProblem) -> BundleManifest {
        let manifest = try BundleManifest.decode(manifestBytes)
        guard let signatureText else {
            throw BundleProblem(.signature, file: BundleLayout.signatureName, "is missing: the bundle is not signed")
        }
        guard let key = manifest.box.signing else {
            throw BundleProblem(.malformed, file: BundleLayout.manifestName, "names a signing key that is not one")
        }
        let trimmed = signatureText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let signature = Data(base64Encoded: trimmed), key.isValidSignature(signature, for: manifestBytes) else {
            throw BundleProblem(
                .signature, file: BundleLayout.manifestName,
                "does not match its signature in \(BundleLayout.signatureName): changed after export")
        }
        guard trustAny || trusted.contains(where: { $0.signingKey == manifest.box.signingKey }) else {
            throw BundleProblem(
                .untrusted, file: BundleLayout.manifestName,
                "is signed by box \(manifest.box.id), which is not trusted: pass its key with --trust FILE "
                    + "(or --trust-any)")
        }
        return manifest
    }
}
