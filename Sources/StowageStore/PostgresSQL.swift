/// The store's portable SQL (and GRDB's compiled requests) as PostgreSQL takes it: `?` placeholders become `$1`,
/// `$2`, … in order, and quoted identifiers (GRDB quotes every column: `"requestedAt"`) are lower-cased, the way
/// PostgreSQL folds the unquoted names the schema was created with. Text inside single quotes is left alone.
enum PostgresSQL {
    /// The translated text and how many placeholders it has.
    static func translate(_ sql: String) -> (text: String, placeholders: Int) {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var placeholder = 0
        var inString = false
        var identifier: String?
        for character in sql {
            if var name = identifier {
                if character == "\"" {
                    out += "\"" + name.lowercased() + "\""
                    identifier = nil
                } else {
                    name.append(character)
                    identifier = name
                }
                continue
            }
            if inString {
                out.append(character)
                if character == "'" { inString = false }
                continue
            }
            switch character {
            case "'":
                inString = true
                out.append(character)
            case "\"": identifier = ""
            case "?":
                placeholder += 1
                out += "$\(placeholder)"
            default: out.append(character)
            }
        }
        return (out, placeholder)
    }
}
