import Foundation
import StowageBundle
import StowageProtocol
import StowageStore

extension BundlesComponent {
    /// What a bundle may not decide, checked on the loop against this box's store before the title is taken in:
    /// the bundle is data, its signer at most a box the operator trusted (or anyone, with `--trust-any`). The id
    /// and name go by submit's rules (``TitleLabels``), and an id held here — by a title, as a token, or by another
    /// concern (``TitleIDClaimant``: an entry of the catalogue in force) — is refused rather than shadowed; the
    /// source URL by submit's rule (``SourceURLRule``); a `--move` bundle is taken in once (its export id is
    /// remembered in the store). The plan's local paths and the sizes were checked with the signature
    /// (``BundleFolder``).
    func checkImportable(_ manifest: BundleManifest) throws {
        let title = manifest.title
        if let name = title.displayName, let why = TitleLabels.nameProblem(name) {
            throw BundleProblem(.malformed, file: BundleLayout.manifestName, "title.displayName \(why)")
        }
        if let id = title.id {
            if let why = TitleLabels.idProblem(id) {
                throw BundleProblem(.malformed, file: BundleLayout.manifestName, "title.id \(why)")
            }
            if let other = try context.store.title(externalID: id) ?? context.store.title(id) {
                throw BundleProblem(
                    .taken, file: BundleLayout.manifestName,
                    "title.id '\(id)' is already title \(other.token) here: `stowctl delete` it first")
            }
            if let claim = claimants().lazy.compactMap({ $0.claim(onTitleID: id) }).first {
                throw BundleProblem(.taken, file: BundleLayout.manifestName, "title.id '\(id)' is \(claim)")
            }
        }
        if let why = SourceURLRule.refusal(title.sourceURL, allowed: allowedHosts) {
            throw BundleProblem(.malformed, file: BundleLayout.manifestName, "title.sourceURL \(why)")
        }
        if manifest.moved, let exportID = manifest.exportID, let earlier = try context.store.importedExport(exportID) {
            throw BundleProblem(
                .replayed, file: BundleLayout.manifestName,
                "is a --move bundle (export \(exportID)) this box already took in as title \(earlier): "
                    + "a moved license is taken in once")
        }
    }

    /// The plan as this box keeps it: what only this box may decide is cleared — the reach (re-derived from the
    /// source URL under this box's address policy at the next fetch, as for a submit before its first resolve)
    /// and anything of a peer fill (a bundle's files came in the bundle).
    func importedPlan(_ plan: ResolvedPlan) -> ResolvedPlan {
        var kept = plan
        kept.reach = nil
        kept.peer = nil
        for i in kept.resources.indices { kept.resources[i].peerSHA256 = nil }
        return kept
    }
}
