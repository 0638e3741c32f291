import Foundation
import StowageBundle
import StowageProtocol
import StowageStore

extension SchedulerService {
    /// What a bundle may not decide, checked on the loop against this box's store before the title is taken in:
    /// the bundle is data, its signer at most a box the operator trusted (or anyone, with `--trust-any`). The id
    /// and name go by submit's rules (``TitleLabels``), and an id held here — by a title, as a token, or by an entry
    /// of the catalogue in force — is refused rather than shadowed; the source URL by submit's rule
    /// (``sourceURLRefusal(_:)``); a `--move` bundle is taken in once (its export id is remembered in the store).
    /// The plan's local paths and the sizes were checked with the signature (``BundleFolder``).
    func checkImportable(_ manifest: BundleManifest) throws {
        let title = manifest.title
        if let name = title.displayName, let why = TitleLabels.nameProblem(name) {
            throw BundleProblem(.malformed, file: BundleLayout.manifestName, "title.displayName \(why)")
        }
        if let id = title.id {
            if let why = TitleLabels.idProblem(id) {
                throw BundleProblem(.malformed, file: BundleLayout.manifestName, "title.id \(why)")
            }
            if let other = try store.title(externalID: id) ?? store.title(id) {
                throw BundleProblem(
                    .taken, file: BundleLayout.manifestName,
                    "title.id '\(id)' is already title \(other.token) here: `stowctl delete` it first")
            }
            if catalog?.lists(id) == true {
                throw BundleProblem(
                    .taken, file: BundleLayout.manifestName,
                    "title.id '\(id)' is an entry of this box's catalogue: the catalogue fills it, not a bundle")
            }
        }
        if let why = sourceURLRefusal(title.sourceURL) {
            throw BundleProblem(.malformed, file: BundleLayout.manifestName, "title.sourceURL \(why)")
        }
        if manifest.moved, let exportID = manifest.exportID, let earlier = try store.importedExport(exportID) {
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

    /// Submit's rule for a title's source URL: http(s) with a host, and within `--allow-hosts`. nil when it may be.
    func sourceURLRefusal(_ url: String) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme), parsed.host != nil
        else { return "'\(url.prefix(200))' is not an http(s) URL of an HLS playlist" }
        if let allowed = options.allowedHosts, let reason = allowed.refusal(url) {
            return reason + " (stowage-scheduler --allow-hosts)"
        }
        return nil
    }
}
