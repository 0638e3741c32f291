import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL store's server, user and database (from the `--store` URL and the PG* variables), and where its
/// password comes from: PGPASSWORD, else the pgpass file (PGPASSFILE, default ~/.pgpass), read when connecting.
/// The password is never part of the value shown (``shown``) or logged.
public struct PostgresLocation: Sendable, Equatable {
    /// `sslmode` of the URL: `disable` (the default), `require` (TLS, any certificate) or `verify-full` (TLS, a
    /// certificate the system trusts for the host name).
    public enum SSLMode: String, Sendable {
        case disable
        case require
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    public var sslMode: SSLMode
    /// PGPASSWORD, PGPASSFILE and HOME as they were when the location was read.
    var passwordVariable: String?
    var passwordFile: String

    public init(
        host: String, port: Int, user: String, database: String, sslMode: SSLMode = .disable,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.sslMode = sslMode
        passwordVariable = environment["PGPASSWORD"]
        passwordFile =
            environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass")
    }

    /// The URL without a password: what logs and errors show.
    public var shown: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// The password: PGPASSWORD, else the first pgpass line matching host, port, database and user (`*` matches
    /// any), else none (a server that trusts the user, or asks none).
    func credentials() throws -> String? {
        if let passwordVariable, !passwordVariable.isEmpty { return passwordVariable }
        guard FileManager.default.fileExists(atPath: passwordFile) else { return nil }
        let attributes = try? FileManager.default.attributesOfItem(atPath: passwordFile)
        if let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw StoreError(
                .badCredentials,
                "the password file \(passwordFile) may be read by other users: chmod 0600 it (PostgreSQL's rule)")
        }
        guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
            throw StoreError(.badCredentials, "the password file \(passwordFile) cannot be read")
        }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = Self.fields(line)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A pgpass line's fields: separated by `:`, with `\:` and `\\` escaping.
    static func fields(_ line: Substring) -> [String] {
        var fields: [String] = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }

    /// postgres-nio's TLS for the `sslmode`.
    func tls() throws -> PostgresNIO.PostgresConnection.Configuration.TLS {
        switch sslMode {
        case .disable: return .disable
        case .require, .verifyFull:
            var configuration = TLSConfiguration.makeClientConfiguration()
            if sslMode == .require { configuration.certificateVerification = .none }
            do {
                return .require(try NIOSSLContext(configuration: configuration))
            } catch {
                throw StoreError(.badLocation, "TLS for sslmode=\(sslMode.rawValue) could not be set up: \(error)")
            }
        }
    }
}

/// Printed, logged or dumped, a location is its URL without a password (it holds PGPASSWORD's value).
extension PostgresLocation: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { shown }
    public var debugDescription: String { shown }
    public var customMirror: Mirror { Mirror(self, children: ["url": shown]) }
}

extension StoreLocation: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location): location.shown
        }
    }
    public var debugDescription: String { description }
}
