/// Why a bundle is refused (or cannot be made), naming the file at fault so a person knows which one to look at.
public struct BundleProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, stable for scripts and tests.
    public enum Code: String, Codable, Sendable, CaseIterable {
        /// A file the manifest lists is not in the bundle folder.
        case missing
        /// A file in the bundle folder the manifest does not list.
        case extra
        /// A file whose size differs from the manifest's.
        case size
        /// A file whose SHA-256 differs from the manifest's.
        case hash
        /// `bundle.sig` is absent or does not verify over `bundle.json` with the signer's key.
        case signature
        /// The signature verifies, but with a key this box was not told to trust (`--trust`, `--trust-any`).
        case untrusted
        /// `bundle.json` is not a manifest this box reads, or names a file path that is not safe.
        case malformed
        /// Wrapped keys that are not for this box, or that do not open.
        case keys
        /// Reading the bundle or writing the copy failed.
        case io
        /// `bundle.json` is larger than this box reads, or the sizes it lists add up past what a title may be
        /// (``BundleLimits``): refused before anything large is read or added.
        case limit
        /// A local path in the plan that this box would not name (``BundleNaming``): it could write outside the
        /// title's folder, or over another title's files, when the offline playlists are written.
        case path
        /// The title's id is already held here (by a title, or by an entry of the catalogue in force).
        case taken
        /// A `--move` bundle this box has already taken in: a moved license is used once.
        case replayed
    }

    public let code: Code
    /// The file at fault, relative to the bundle folder.
    public let file: String
    public let message: String

    public init(_ code: Code, file: String, _ message: String) {
        self.code = code
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message) (\(code.rawValue))" }
}
