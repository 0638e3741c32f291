/// The fixed names in a bundle folder and the rule for what a file path in a manifest may be.
public enum BundleLayout {
    /// The manifest, signed byte for byte.
    public static let manifestName = "bundle.json"
    /// The exporting box's Ed25519 signature over `bundle.json` (64 raw bytes, base64, one line).
    public static let signatureName = "bundle.sig"

    /// Whether `path` may name a file of a bundle: relative, no `.` or `..` component, no empty component, not
    /// one of the bundle's own files. A manifest naming anything else could make an import write outside its
    /// staging folder, so the import check refuses it.
    public static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), path != manifestName, path != signatureName else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }
    }
}
