import Foundation

/// `STOWAGE_<OPTION>` from the environment, used when the flag is not given (flags win).
///
/// It lives in the runtime, not with the option groups, because the runtime's own settings (the CURVE key
/// files) fall back to the environment too.
public func environmentOption(_ name: String) -> String? {
    let key = "STOWAGE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    guard let value = ProcessInfo.processInfo.environment[key], !value.isEmpty else { return nil }
    return value
}
