import Foundation
import StowageRuntime

/// What makes a text option's value bad, one rule per kind of value, for ``EnvironmentRule``'s `check`: each
/// returns why the value is refused, or nil. The same check applies to the flag and to its variable.
public enum OptionChecks {
    /// A file this process will read (a key, a certificate, a secret): it must exist and be readable now, not fail
    /// later in a way that names no option.
    public static func readableFile(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "no such file"
        }
        if isDirectory.boolValue { return "is a directory, not a file" }
        return FileManager.default.isReadableFile(atPath: path) ? nil : "cannot be read (permissions)"
    }

    /// A file or a directory that must exist (`--allow-keys`).
    public static func existing(_ path: String) -> String? {
        FileManager.default.fileExists(atPath: path) ? nil : "no such file or directory"
    }

    /// A file this process will write (`--pidfile`): its directory must exist.
    public static func writableFile(_ path: String) -> String? {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else { return "its directory \(directory) does not exist" }
        return nil
    }

    /// The home: a directory, or nothing yet (it is created).
    public static func home(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "is a file, not a directory"
        }
        return nil
    }

    /// A ZeroMQ endpoint Stowage speaks: `ipc://PATH` or `tcp://HOST:PORT` (`*` as HOST for a bind).
    public static func endpoint(_ text: String) -> String? { SchedulerEndpoints.problem(endpoint: text) }

    /// `--scheduler`: one endpoint or several, comma-separated (``SchedulerEndpoints``).
    public static func schedulerEndpoints(_ text: String) -> String? {
        do {
            _ = try SchedulerEndpoints.parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    /// The scheduler's CURVE public key: 40 Z85 characters, or a file holding one.
    public static func curveServerKey(_ text: String) -> String? {
        (try? CurveClientKeys.serverKey(from: text)) == nil
            ? "is neither a 40-character Z85 key nor a file holding one" : nil
    }

    /// `HOST:PORT` or `PORT` of a listener on this host (`--metrics`, `--listen`).
    public static func listenAddress(_ text: String) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let port = Int(parts.last ?? ""), (0...65_535).contains(port) else {
            return "is not PORT or HOST:PORT (e.g. 9464 or 0.0.0.0:9464)"
        }
        return nil
    }

    /// An http(s) URL with a host.
    public static func httpURL(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else { return "is not an http(s) URL" }
        return nil
    }
}
