/// The rule for a title's stable id (`submit --id`, a bundle's `title.id`) and its display name (`--name`, a
/// bundle's `title.displayName`), in one place for every way a title arrives. The id is a path part of the
/// gateway's `/titles/<id>/` and a `/resolve?id=` value, and both show on one line of `status` and the console.
/// An id never has a token's shape (``TitleToken``): `/titles/<token-or-id>/` and `stowctl`'s TOKEN or `--id`
/// must not be able to mean two titles.
public enum TitleLabels {
    /// The longest id, in characters.
    public static let maxIDLength = 200
    /// The longest display name, in characters.
    public static let maxNameLength = 500

    /// Why `id` cannot be a title's id, in words (the caller names where it came from), or nil.
    public static func idProblem(_ id: String) -> String? {
        guard !id.isEmpty, id.count <= maxIDLength, id != ".", id != "..",
            !id.unicodeScalars.contains(where: { $0 == "/" || $0.properties.generalCategory == .control })
                && !id.contains(where: \.isNewline)
        else {
            return "is 1 to \(maxIDLength) characters, not '.' or '..', without '/', line breaks or control characters"
        }
        if TitleToken.hasShape(id) {
            return "'\(id)' has the shape of a title token (16 hex digits), so it could be taken for one: choose "
                + "another id (any other length, or a character that is not a hex digit)"
        }
        return nil
    }

    /// Why `name` cannot be a title's display name, in words, or nil.
    public static func nameProblem(_ name: String) -> String? {
        guard name.count <= maxNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                && !name.contains(where: \.isNewline)
        else { return "is at most \(maxNameLength) characters, without line breaks or control characters" }
        return nil
    }
}
