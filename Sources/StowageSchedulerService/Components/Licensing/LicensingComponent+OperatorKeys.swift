import Foundation
import StowageLicensing
import StowageProtocol
import StowageStore

/// `submit --key KID:KEY`: titles whose owner holds the keys are licensed here, with the terms the operator gives,
/// and no license server is asked. The keys are wrapped under the master key from the moment they arrive (bound to
/// the title and key ID); once the plan names the title's keys they are recorded like acquired keys. `renew`
/// grants the operator's terms again here.
extension LicensingComponent {
    /// The submitted keys, wrapped; nil when none were given.
    func wrapOperatorKeys(_ keys: [OperatorKey]?, token: String) throws -> [String: Data]? {
        guard let keys, !keys.isEmpty else { return nil }
        var wrapped: [String: Data] = [:]
        for k in keys {
            guard wrapped[k.kid] == nil else {
                throw TitleError(code: .refused, message: "--key names key ID \(k.kid) twice: give each key once")
            }
            wrapped[k.kid] = try pipeline.vault.wrap(k.keyBytes, token: Self.operatorKeyScope(token, k.kid), index: 0)
        }
        return wrapped
    }

    /// Licenses a just-planned title with its operator keys (the terms requested), then downloads it. Every
    /// planned key ID needs a `--key` and every `--key` must be one of the title's, else the title fails naming
    /// the key ID. False for titles without `--key` (a license task acquires theirs).
    func grantOperatorKeys(_ token: String) throws -> Bool {
        guard let title = try context.store.title(token), let given = title.operatorKeys else { return false }
        let planned = try context.store.keys(token: token).sorted { $0.position < $1.position }
        var ids: [String] = []
        for key in planned {
            guard let id = key.keyID.flatMap(KeyEncoding.hex).map(KeyEncoding.hexString) else {
                try context.desk.fail(
                    token, operatorKeyError("--key applies to Common Encryption titles, whose keys have key IDs"))
                return true
            }
            ids.append(id)
        }
        if let missing = ids.first(where: { given[$0] == nil }) {
            try context.desk.fail(token, operatorKeyError("the title needs key ID \(missing), which no --key gives"))
            return true
        }
        // A recording may name keys of Periods still to come (a key change): they are applied as they are met.
        if title.record == nil, let extra = given.keys.sorted().first(where: { !ids.contains($0) }) {
            let known = ids.isEmpty ? "it has none" : "its key IDs: " + ids.joined(separator: ", ")
            try context.desk.fail(
                token, operatorKeyError("--key names key ID \(extra), which the title does not use (\(known))"))
            return true
        }
        let keys = try ids.map { id in
            let wrapped = given[id] ?? Data()
            return Data(try pipeline.vault.unwrap(wrapped, token: Self.operatorKeyScope(token, id), index: 0))
                .base64EncodedString()
        }
        let grant = LicenseGrant(
            terms: GrantedTerms(requested: title.requestedTerms, at: context.clock.now()), keys: keys)
        try context.desk.record(
            TitleHappening(token, kind: "license", detail: "licensed with \(ids.count) operator keys"))
        try applyLicense(grant, token: token)
        return true
    }

    /// `renew` of an operator-key title: the operator is the licensor, so the terms it asks for (the new ones, else
    /// those of the submit) are granted again from now with the same keys; there is no server to ask. False for
    /// any other title (a license task renews it). A `--license-url` given to `renew` makes that server the
    /// title's licensor from then on.
    func renewWithOperatorKeys(_ title: TitleRecord) throws -> Bool {
        guard title.isOperatorLicensed else { return false }
        renewals.end(title.token)
        return try grantOperatorKeys(title.token)
    }

    private func operatorKeyError(_ message: String) -> TitleError { TitleError(code: .license, message: message) }

    /// What an operator key's wrapping is bound to: the title and the key ID.
    static func operatorKeyScope(_ token: String, _ kid: String) -> String { "\(token)#operator-key#\(kid)" }
}
