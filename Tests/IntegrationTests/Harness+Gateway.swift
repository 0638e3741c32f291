import Foundation
import Testing

extension Harness {
    /// `stowage-gateway` on `address` (a free port), the test admin secret in a file; returns its base URL
    /// (`http://ADDRESS:PORT`) once it listens.
    func startGateway(address: String, name: String = "gateway", extra: [String] = []) throws -> String {
        let secretFile = root.appendingPathComponent("admin.secret")
        try "admin-secret-for-tests\n".write(to: secretFile, atomically: true, encoding: .utf8)
        let port = try Harness.freePort()
        let out = root.appendingPathComponent("\(name).out")
        try spawn(
            name, "stowage-gateway",
            ["--listen", "\(address):\(port)", "--admin-secret", secretFile.path] + extra, stdout: out)
        try waitUntil(timeout: 30, "the gateway to listen") {
            ((try? String(contentsOf: out, encoding: .utf8)) ?? "").contains("listening")
        }
        return "http://\(address):\(port)"
    }

    /// `stowctl devices add NAME`: the device's secret (the last line it prints).
    func addDevice(_ name: String) throws -> String {
        let (code, out) = try stowctl(["devices", "add", name])
        guard code == 0, let secret = out.split(separator: "\n").last else {
            throw HarnessError("devices add \(name) exited \(code): \(out)")
        }
        return String(secret)
    }
}
