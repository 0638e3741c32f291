import Foundation

extension Harness {
    /// `stowage-gateway` on `address` (`port`, default a free one), the test admin secret in a file; with `tls`
    /// (certificate and key files) it serves HTTPS; `environment` adds to its environment (`TZ`). Returns its base URL
    /// (`http(s)://ADDRESS:PORT`) once it listens.
    public func startGateway(
        address: String, name: String = "gateway", port: Int? = nil, extra: [String] = [],
        tls: (certificate: URL, key: URL)? = nil, environment: [String: String] = [:]
    ) throws -> String {
        let secretFile = root.appendingPathComponent("admin.secret")
        try "admin-secret-for-tests\n".write(to: secretFile, atomically: true, encoding: .utf8)
        let port = try port ?? Harness.freePort()
        let out = root.appendingPathComponent("\(name).out")
        let scheme = tls == nil ? "http" : "https"
        let tlsArguments = tls.map { ["--tls-cert", $0.certificate.path, "--tls-key", $0.key.path] } ?? []
        try spawn(
            name, "stowage-gateway",
            ["--listen", "\(address):\(port)", "--admin-secret", secretFile.path] + tlsArguments + extra, stdout: out,
            environment: environment)
        try waitUntil(timeout: 30, "the gateway \(name) to listen") {
            ((try? String(contentsOf: out, encoding: .utf8)) ?? "").contains("listening \(scheme)://")
        }
        return "\(scheme)://\(address):\(port)"
    }

    /// `stowctl devices add NAME`: the device's secret (the last line it prints).
    public func addDevice(_ name: String) throws -> String {
        let (code, out) = try stowctl(["devices", "add", name])
        guard code == 0, let secret = out.split(separator: "\n").last else {
            throw HarnessError("devices add \(name) exited \(code): \(out)")
        }
        return String(secret)
    }

    /// The HTTP status `curl` gets for `url` with these request headers (0 when nothing answered).
    public func httpStatus(_ url: String, headers: [String] = [], extra: [String] = []) throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments =
            ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}"] + headers.flatMap { ["-H", $0] } + extra + [url]
        let (_, code) = try runCapturingOutput(p)
        return Int(code.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The first video segment of a completed title's offline copy: its path under the title and its duration.
    public func firstSegment(_ token: String) throws -> (path: String, seconds: Double) {
        let folder = home.appendingPathComponent("titles/\(token)")
        // The video's when there is one: the play time counted (audio runs beside it).
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted { a, _ in a == "video" }
        for name in names {
            let playlist = folder.appendingPathComponent("\(name)/index.m3u8")
            guard let text = try? String(contentsOf: playlist, encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n")
            guard let extinf = lines.firstIndex(where: { $0.hasPrefix("#EXTINF:") }),
                let seconds = Double(lines[extinf].dropFirst(8).split(separator: ",")[0]),
                let segment = lines[(extinf + 1)...].first(where: { !$0.hasPrefix("#") })
            else { continue }
            return ("\(name)/\(segment)", seconds)
        }
        throw HarnessError("no media playlist in \(folder.path)")
    }
}
