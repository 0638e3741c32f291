import Foundation
import StowageProtocol
import ZeroMQ

/// The public keys allowed to connect over CURVE, each with the role it may act in: a file with one key per line
/// (`<Z85> [NAME]`, `#` comments; every key an operator's), or a directory holding `worker/`, `gateway/` and
/// `operator/` folders of `NAME.pub` files, the folder being the key's role. `.pub` files directly in the directory
/// (the layout before roles) are operators' keys. Read at each handshake, so keys can be added, moved or removed
/// without a restart.
public struct AllowList: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// Where a key found in several places counts: the narrowest role first, so a key copied into a worker
    /// folder by mistake does not keep an operator's rights.
    static let precedence: [CallerRole] = [.worker, .gateway, .operator]

    /// Every key listed now, with its caller (role and name). A missing or unreadable list allows nobody.
    public func callers() -> [String: Caller] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [:] }
        guard isDirectory.boolValue else {
            return Self.read(file: path, role: .operator, name: nil)
        }
        var out: [String: Caller] = [:]
        for role in Self.precedence {
            for (key, caller) in Self.read(directory: "\(path)/\(role.rawValue)", role: role) where out[key] == nil {
                out[key] = caller
            }
        }
        // The flat layout (before roles): operators.
        for (key, caller) in Self.read(directory: path, role: .operator) where out[key] == nil { out[key] = caller }
        return out
    }

    /// The keys listed now, whatever their role.
    public func keys() -> Set<String> { Set(callers().keys) }

    /// Who this key is, or nil when it is not on the list.
    public func caller(for publicKey: String) -> Caller? { callers()[publicKey] }

    public func allows(_ publicKey: String) -> Bool { caller(for: publicKey) != nil }

    /// How many keys each role has now, e.g. `worker=2 gateway=1 operator=1` (for the start-up log).
    public func roleCounts() -> String {
        let callers = callers().values
        return CallerRole.allCases.map { role in "\(role.rawValue)=\(callers.filter { $0.role == role }.count)" }
            .joined(separator: " ")
    }

    private static func read(directory: String, role: CallerRole) -> [String: Caller] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".pub") }.sorted()
        var out: [String: Caller] = [:]
        for file in files {
            let name = String(file.dropLast(4))
            for (key, caller) in read(file: "\(directory)/\(file)", role: role, name: name) where out[key] == nil {
                out[key] = caller
            }
        }
        return out
    }

    /// The keys of one file; a key's name is `name` (its file's), else the word after it, else its first
    /// eight characters.
    private static func read(file: String, role: CallerRole, name: String?) -> [String: Caller] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [:] }
        var out: [String: Caller] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let words = line.split(separator: " ").map(String.init)
            guard let key = words.first, Curve.isKey(key), out[key] == nil else { continue }
            let label = name ?? words.dropFirst().first ?? "key-\(key.prefix(8))"
            out[key] = Caller(role: role, name: String(label.prefix(64)))
        }
        return out
    }
}
