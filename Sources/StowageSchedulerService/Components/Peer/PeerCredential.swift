import Foundation
import StowageCatalog
import StowageProtocol

/// A peer secret this box keeps for a catalogue's `sources`, and the one origin it may be sent to. A published
/// catalogue names the peer's URL and the credential's name; whoever signs or serves the catalogue could name any
/// host, loopback included, and have the box present the secret there. So the secret is bound to its peer:
/// `peers/<credential>.secret` holds the secret, `peers/<credential>.url` the peer gateway's base URL the operator
/// got it from, and the secret goes only to that URL's origin (scheme, host and port). A source naming another
/// origin gets no credential: the title comes from its origin URL and the refusal says why.
public enum PeerCredential {
    /// Why a source's credential is not used.
    public struct Refusal: Error, Sendable, Equatable {
        public var message: String
    }

    /// The secret for `source`, read under `home`, or why none is used.
    public static func read(_ source: CatalogSource, home: URL) -> Result<String, Refusal> {
        let secretFile = home.appendingPathComponent("peers/\(source.credential).secret")
        let urlFile = home.appendingPathComponent("peers/\(source.credential).url")
        let secret = (try? String(contentsOf: secretFile, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let secret, !secret.isEmpty else {
            return .failure(Refusal(message: "no peer credential: \(secretFile.path) is missing or empty"))
        }
        guard let bound = try? String(contentsOf: urlFile, encoding: .utf8) else {
            return .failure(
                Refusal(
                    message: "\(urlFile.path) is missing: a peer secret is sent only to the gateway URL written "
                        + "beside it (one line, such as http://box-a:8480)"))
        }
        let url = bound.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let allowed = URLOrigin.of(url) else {
            return .failure(Refusal(message: "\(urlFile.path): '\(url.prefix(200))' is not an http(s) URL"))
        }
        guard let named = URLOrigin.of(source.peer), named == allowed else {
            return .failure(
                Refusal(
                    message: "the source names \(URLRedaction.redacted(source.peer).prefix(200)), but the secret "
                        + "'\(source.credential)' belongs to \(allowed) (\(urlFile.path)): it is sent nowhere else"))
        }
        return .success(secret)
    }
}
