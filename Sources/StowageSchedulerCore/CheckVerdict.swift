import StowageProtocol

/// What an integrity check's report means for its file: verified (with the hash it keeps), or fetched again.
public enum CheckVerdict: Sendable, Equatable {
    /// The file is verified, its SHA-256 kept.
    case verified(sha256: String)
    /// The file is fetched again, counting an attempt (`integrity`); `removeFile`: what is on disk is bad and goes.
    case fetchAgain(reason: String, removeFile: Bool)

    /// `known`: the SHA-256 the store already holds for the file (from its fetch), if any.
    public static func of(_ report: VerifyReport, known: String?) -> CheckVerdict {
        guard report.ok else {
            return .fetchAgain(reason: "integrity: \(report.reason ?? "check failed")", removeFile: true)
        }
        guard let sha256 = known ?? report.sha256 else {
            return .fetchAgain(reason: "integrity: the check reported no SHA-256", removeFile: false)
        }
        return .verified(sha256: sha256)
    }
}
