import Foundation

/// `STOWAGE_<OPTION>` for a long option name: upper case, dashes as underscores (`per-title` → `STOWAGE_PER_TITLE`).
public func environmentVariable(_ option: String) -> String {
    "STOWAGE_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
}

/// The raw text of `STOWAGE_<OPTION>` with the variable's name, or nil when it is unset or empty.
///
/// Only `EnvironmentRule` (StowageProcess) reads options through it: it parses and checks the text with the
/// option's own type, and a bad value stops the start naming the variable. It lives in the runtime because the
/// home (`STOWAGE_HOME`) is found here too.
public func environmentValue(_ option: String) -> (name: String, value: String)? {
    let key = environmentVariable(option)
    guard let value = ProcessInfo.processInfo.environment[key], !value.isEmpty else { return nil }
    return (key, value)
}
