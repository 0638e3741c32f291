import Foundation

/// A language tag as a viewer reads it, in that language ("fr" → "Français", "de" → "Deutsch"): a pupil picks
/// their own language by its own name. An unknown tag stays as it is.
enum LanguageNames {
    static func name(_ tag: String) -> String {
        let code = String(tag.prefix { $0 != "-" && $0 != "_" })
        guard let name = Locale(identifier: code).localizedString(forLanguageCode: code), !name.isEmpty,
            name.lowercased() != code.lowercased()
        else { return tag }
        return name.prefix(1).uppercased() + name.dropFirst()
    }
}
