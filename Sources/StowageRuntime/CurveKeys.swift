import Foundation
import ZeroMQ

/// A CURVE key pair kept in a file (`stowctl keys generate NAME` writes `NAME.key`, mode 0600, and
/// `NAME.pub`). The key file holds two lines, `public = <Z85>` and `secret = <Z85>`; the `.pub` file holds
/// the public key alone, which is what goes on the scheduler's allow-list.
public struct CurveKeyPair: Sendable, Equatable {
    public let publicKey: String
    public let secretKey: String

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A fresh pair.
    public static func generate() throws -> CurveKeyPair {
        let (pub, sec) = try Curve.generateKeyPair()
        return CurveKeyPair(publicKey: pub, secretKey: sec)
    }

    /// Reads a key file; the public half is recomputed from the secret one and must match when present.
    public static func load(_ path: String) throws -> CurveKeyPair {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RuntimeError("cannot read the CURVE key file \(path) (make one with `stowctl keys generate NAME`)")
        }
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let secret = fields["secret"], let pub = Curve.publicKey(forSecret: secret) else {
            throw RuntimeError("\(path) has no valid `secret = <40 Z85 characters>` line: not a Stowage CURVE key file")
        }
        if let stated = fields["public"], stated != pub {
            throw RuntimeError("\(path): its public key does not belong to its secret key; generate the pair again")
        }
        return CurveKeyPair(publicKey: pub, secretKey: secret)
    }

    /// Writes `DIR/NAME.key` (0600, both halves) and `DIR/NAME.pub` (public key). Refuses to overwrite.
    public func write(directory: URL, name: String) throws -> (key: URL, pub: URL) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }),
            !name.hasPrefix(".")
        else {
            throw RuntimeError("a key name is letters, digits, '-', '_' or '.', e.g. worker-host2")
        }
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = directory.appendingPathComponent("\(name).key"), pub = directory.appendingPathComponent("\(name).pub")
        guard !fm.fileExists(atPath: key.path) else {
            throw RuntimeError("\(key.path) exists; remove it first to replace the key")
        }
        let secretText =
            "# Stowage CURVE key pair \(name): keep this file secret\n"
            + "public = \(publicKey)\nsecret = \(secretKey)\n"
        guard
            fm.createFile(
                atPath: key.path, contents: Data(secretText.utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw RuntimeError("cannot write \(key.path)")
        }
        try Data("\(publicKey) \(name)\n".utf8).write(to: pub)
        return (key, pub)
    }
}

/// How a worker or `stowctl` secures its connection: over `tcp://` CURVE is required (its own key pair
/// and the scheduler's public key); ipc needs nothing (the socket lives in a 0700 directory).
public struct CurveClientKeys: Sendable {
    public let pair: CurveKeyPair
    public let serverKey: String

    /// From `--curve-key FILE` and `--curve-server-key KEY|FILE` (their `STOWAGE_` variables resolved by the option
    /// groups). nil for a non-tcp endpoint; an error naming what is missing for tcp.
    public static func resolve(endpoint: String, keyFile: String?, serverKey: String?) throws -> CurveClientKeys? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        guard let file = keyFile else {
            throw RuntimeError(
                "\(endpoint) is a tcp endpoint: connections are CURVE-encrypted, so give "
                    + "--curve-key FILE (make one with `stowctl keys generate NAME` and add NAME.pub to "
                    + "the scheduler's allow-list)")
        }
        guard let server = serverKey else {
            throw RuntimeError(
                "\(endpoint) is a tcp endpoint: give --curve-server-key with the scheduler's public "
                    + "key (its .pub file or the 40-character key)")
        }
        return CurveClientKeys(pair: try CurveKeyPair.load(file), serverKey: try Self.serverKey(from: server))
    }

    /// For several scheduler endpoints: the keys when any is a tcp endpoint (the schedulers of a farm share one key
    /// pair, so the one server key applies to each), checked as for the first tcp one; nil when none is.
    public static func resolve(endpoints: [String], keyFile: String?, serverKey: String?) throws -> CurveClientKeys? {
        guard let tcp = endpoints.first(where: { $0.hasPrefix("tcp://") }) else { return nil }
        return try resolve(endpoint: tcp, keyFile: keyFile, serverKey: serverKey)
    }

    /// The scheduler's public key from `--curve-server-key`: the 40-character Z85 key itself, or a file (a `.pub`)
    /// whose first word is one.
    public static func serverKey(from text: String) throws -> String {
        let key =
            Curve.isKey(text)
            ? text
            : (try? String(contentsOfFile: text, encoding: .utf8))?.split(separator: " ").first
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        guard Curve.isKey(key) else {
            throw RuntimeError(
                "--curve-server-key: '\(text.prefix(80))' is neither a 40-character Z85 key nor a file holding one")
        }
        return key
    }

    /// Sets the client side of CURVE on a socket, before it connects.
    public func apply(to socket: Socket) throws {
        guard let pub = Curve.decode(pair.publicKey), let sec = Curve.decode(pair.secretKey),
            let server = Curve.decode(serverKey)
        else {
            throw RuntimeError("invalid CURVE key material")
        }
        try socket.set(.curveServerKey(server))
        try socket.set(.curvePublicKey(pub))
        try socket.set(.curveSecretKey(sec))
    }
}
