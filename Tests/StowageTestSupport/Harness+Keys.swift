import Foundation

extension Harness {
    /// A CURVE key pair for `name` in the test root (`keys-NAME/`), the scheduler's own pair made in the home first
    /// when it has none. With `role` its public key goes on the scheduler's allow-list (`keys/allowed/ROLE/`; `""`:
    /// the top of the list, the layout before roles). Returns the arguments a worker, the gateway or `stowctl` needs
    /// to reach `endpoint` with it.
    public func curveClient(_ name: String, role: String?, endpoint: String) throws -> [String] {
        if !FileManager.default.fileExists(atPath: home.appendingPathComponent("keys/scheduler.key").path) {
            let (code, out) = try stowctl(["keys", "generate", "scheduler"])
            guard code == 0 else { throw HarnessError("keys generate scheduler exited \(code): \(out)") }
        }
        let dir = root.appendingPathComponent("keys-\(name)")
        let (code, out) = try stowctl(["keys", "generate", name, "--dir", dir.path])
        guard code == 0 else { throw HarnessError("keys generate \(name) exited \(code): \(out)") }
        if let role { try allow(name, role: role) }
        return [
            "--scheduler", endpoint, "--curve-key", dir.appendingPathComponent("\(name).key").path,
            "--curve-server-key", home.appendingPathComponent("keys/scheduler.pub").path,
        ]
    }

    /// Puts the public key of ``curveClient(_:role:endpoint:)``'s `name` on the allow-list as `role`.
    public func allow(_ name: String, role: String = "") throws {
        let allowed = home.appendingPathComponent(role.isEmpty ? "keys/allowed" : "keys/allowed/\(role)")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("keys-\(name)/\(name).pub"),
            to: allowed.appendingPathComponent("\(name).pub"))
    }
}
