/// `stowctl export TOKEN DIR`: what the scheduler is asked to write (docs/bundles.md). The scheduler writes `DIR`
/// itself because it alone holds the store, the key vault and the titles folder.
public struct BundleExportRequest: Codable, Sendable, Equatable {
    public var token: String
    /// The folder to write (absolute; new or empty).
    public var directory: String
    /// The receiving box's public key file text (`--for-box`): its content keys are sealed for that box. nil: no
    /// key leaves this box.
    public var forBox: String?
    /// `--move`: this box gives the license up (its copy stops being playable) so plays are not doubled.
    public var move: Bool

    public init(token: String, directory: String, forBox: String? = nil, move: Bool = false) {
        self.token = token
        self.directory = directory
        self.forBox = forBox
        self.move = move
    }
}

/// `stowctl import DIR`: the bundle folder and whom to trust as its signer.
public struct BundleImportRequest: Codable, Sendable, Equatable {
    /// The bundle folder (absolute).
    public var directory: String
    /// Public key file texts of the boxes trusted to sign (`--trust`, repeatable).
    public var trusted: [String]
    /// `--trust-any`: any signer whose signature verifies.
    public var trustAny: Bool

    public init(directory: String, trusted: [String] = [], trustAny: Bool = false) {
        self.directory = directory
        self.trusted = trusted
        self.trustAny = trustAny
    }
}

/// An export or import the scheduler runs beside its loop (copying a title's files takes as long as its size
/// calls for; the loop must keep serving workers meanwhile). `stowctl` polls it (`bundleJob`) for the bar.
public struct BundleJob: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case export, `import` }
    public enum State: String, Codable, Sendable {
        /// Files are being copied (and hashed).
        case running
        /// Written (export) or registered `completed` (import).
        case done
        /// Refused or failed; nothing of an import stays.
        case failed
    }

    /// Why a bundle was refused: the bundle check's code (`missing`, `extra`, `size`, `hash`, `signature`,
    /// `untrusted`, `malformed`, `keys`, `io`) and the file at fault, relative to the bundle folder.
    public struct Problem: Codable, Sendable, Equatable {
        public var code: String
        public var file: String

        public init(code: String, file: String) {
            self.code = code
            self.file = file
        }
    }

    public var id: String
    public var kind: Kind
    public var directory: String
    /// The exported title, or once an import is registered the title's token on this box.
    public var token: String?
    public var state: State
    public var bytesDone: Int64
    public var bytesTotal: Int64
    /// The error with its code (`integrity`, `refused`, `io`, …) and a message naming the file.
    public var error: TitleError?
    public var problem: Problem?
    /// An export with `--move`: this box gave the license up.
    public var moved: Bool = false
    /// What the import noted without refusing (content keys for another box: the copy waits for a license).
    public var note: String?

    public init(id: String, kind: Kind, directory: String, token: String?, bytesTotal: Int64) {
        self.id = id
        self.kind = kind
        self.directory = directory
        self.token = token
        self.state = .running
        self.bytesDone = 0
        self.bytesTotal = bytesTotal
    }
}
