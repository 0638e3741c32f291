import Foundation
import StowageProtocol

/// Resolves a title filled from a peer box (`submit --from-peer`): fetches that box's `manifest.json` with the peer
/// secret (the task's headers; the fetch scope sends them to the peer's host only, and applies the network policy
/// as to any source) and answers the peer's plan with its hashes (``PeerManifest/fillPlan``). The manifest is
/// another box's word: one that does not parse or fails ``PeerManifest/problem`` fails the title (`refused`); a
/// peer that cannot be reached fails the task as `network`, so the title waits for it like for an origin.
public struct PeerManifestResolver: Sendable {
    let fetcher: HTTPFetcher

    public init(fetcher: HTTPFetcher) { self.fetcher = fetcher }

    public func resolve(_ work: ResolveWork) async throws(TaskFailure) -> ResolvedPlan {
        do {
            let (bytes, _) = try await fetcher.fetchBytes(work.url, headers: work.headers)
            return try Self.plan(bytes, from: work.url)
        } catch  where error.code == .sourceGone {
            var failure = error
            failure.message =
                "\(URLRedaction.redacted(work.url)) answered 404: the peer holds no such title to fill from "
                + "(unknown id, a recording, or not planned yet there)"
            throw failure
        }
    }

    /// The fill plan in a manifest's bytes, or the `refused` failure that names what is wrong with them.
    public static func plan(_ bytes: [UInt8], from url: String) throws(TaskFailure) -> ResolvedPlan {
        let manifest: PeerManifest
        do {
            manifest = try JSONDecoder().decode(PeerManifest.self, from: Data(bytes))
        } catch {
            throw TaskFailure(
                code: .refused, message: "\(URLRedaction.redacted(url)) is not a title manifest: \(error)",
                retryable: false)
        }
        if let problem = manifest.problem {
            throw TaskFailure(code: .refused, message: "\(URLRedaction.redacted(url)): \(problem)", retryable: false)
        }
        return manifest.fillPlan
    }
}
