import ArgumentParser
import Foundation
import StowageRuntime

/// The one rule for options and the environment: the flag, else `STOWAGE_<OPTION>` (upper case, dashes as
/// underscores), parsed as the same ``OptionValue`` type; a flag wins. An empty variable counts as unset.
///
/// A variable whose value is bad stops the start: the error names the variable and says what it accepts, and,
/// thrown from `validate()`, it is a usage error (exit 2, on stderr) as a bad flag is. Before this rule a dozen
/// variables (`STOWAGE_TITLES=abc`) were silently ignored. Each option group resolves its own options in its
/// `validate()`, so `run()` only ever sees values already checked.
public enum EnvironmentRule {
    /// `STOWAGE_<OPTION>` for the long option name `option` (`per-title` → `STOWAGE_PER_TITLE`).
    public static func variable(_ option: String) -> String { environmentVariable(option) }

    /// The flag's value, else the variable's parsed as `T`, else nil; `check` (a range, a file that must exist)
    /// applies to either and returns why the value is refused.
    public static func resolve<T: OptionValue>(
        _ flag: T?, _ option: String, secret: Bool = false, check: (T) -> String? = { _ in nil }
    ) throws -> T? {
        if let flag {
            if let problem = check(flag) { throw ValidationError("--\(option) \(flag): \(problem)") }
            return flag
        }
        guard let (name, text) = environmentValue(option) else { return nil }
        let shown = secret ? "" : "='\(text.prefix(80))'"
        let value: T
        do {
            value = try T(validating: text)
        } catch {
            throw ValidationError("\(name)\(shown) is not valid for --\(option): \(secret ? "refused" : "\(error)")")
        }
        if let problem = check(value) { throw ValidationError("\(name)\(shown): \(problem)") }
        return value
    }

    /// A repeatable option: the flags, else the variable split into several values by `separator` (nil: one
    /// value), each parsed and checked as ``resolve(_:_:secret:check:)`` does.
    public static func resolve<T: OptionValue>(
        list flags: [T], _ option: String, separator: ((Character) -> Bool)? = nil, check: (T) -> String? = { _ in nil }
    ) throws -> [T] {
        for flag in flags {
            if let problem = check(flag) { throw ValidationError("--\(option) \(flag): \(problem)") }
        }
        guard flags.isEmpty, let (name, text) = environmentValue(option) else { return flags }
        let parts = separator.map { text.split(whereSeparator: $0).map(String.init) } ?? [text]
        return try parts.map { part in
            let value: T
            do { value = try T(validating: part) } catch {
                throw ValidationError("\(name)='\(text.prefix(80))' is not valid for --\(option): \(error)")
            }
            if let problem = check(value) { throw ValidationError("\(name)='\(text.prefix(80))': \(problem)") }
            return value
        }
    }

    /// A flag (`--no-zero-copy`): given, or the variable set to `1`/`true`/`yes`/`on` (`0`/`false`/`no`/`off`: not).
    public static func resolve(flag: Bool, _ option: String) throws -> Bool {
        if flag { return true }
        guard let (name, text) = environmentValue(option) else { return false }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default:
            throw ValidationError(
                "\(name)='\(text.prefix(80))' is not valid for --\(option): "
                    + "write 1, true, yes or on (0, false, no, off)")
        }
    }
}
