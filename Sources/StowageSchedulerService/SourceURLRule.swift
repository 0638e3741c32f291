import Foundation
import StowageProtocol

/// Submit's rule for a title's source URL, which a bundle's title keeps to as well: http(s) with a host, and
/// within `--allow-hosts`.
enum SourceURLRule {
    /// Why `url` may not be a title's source (nil when it may), under the box's `allowed` hosts.
    static func refusal(_ url: String, allowed: HostAllowList?) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme), parsed.host != nil
        else { return "'\(url.prefix(200))' is not an http(s) URL of an HLS playlist" }
        if let allowed, let reason = allowed.refusal(url) {
            return reason + " (stowage-scheduler --allow-hosts)"
        }
        return nil
    }
}
