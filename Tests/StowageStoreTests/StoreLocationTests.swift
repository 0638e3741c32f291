import Foundation
import Testing

@testable import StowageStore

/// `--store` as the scheduler reads it: a postgres URL, the PG* variables filling what it leaves out, never a
/// password on the command line, and the pgpass file's lines.
@Suite("Store location")
struct StoreLocationTests {
    @Test func theURLNamesServerUserAndDatabaseAndThePGVariablesFillTheRest() throws {
        let full = try StoreLocation.parse("postgres://farm@db.example:6543/stowage?sslmode=require", environment: [:])
        guard case .postgres(let a) = full else { throw StoreError(.badLocation, "not postgres") }
        #expect([a.user, a.host, a.database] == ["farm", "db.example", "stowage"])
        #expect(a.port == 6543)
        #expect(a.sslMode == .require)
        let environment = ["PGHOST": "pg1", "PGPORT": "7000", "PGUSER": "ops", "PGDATABASE": "hub"]
        guard case .postgres(let b) = try StoreLocation.parse("postgres://", environment: environment) else {
            throw StoreError(.badLocation, "not postgres")
        }
        #expect([b.user, b.host, b.database] == ["ops", "pg1", "hub"])
        #expect(b.port == 7000)
        #expect(b.shown == "postgres://ops@pg1:7000/hub")
    }

    @Test func aPasswordInTheURLIsRefusedAndSaysWhereItGoes() throws {
        let error = try #require(throws: StoreError.self) {
            try StoreLocation.parse("postgres://farm:hunter2@db:5432/stowage", environment: [:])
        }
        #expect(error.code == .passwordInURL)
        #expect(error.message.contains("PGPASSFILE"))
        #expect(!error.description.contains("hunter2"))
    }

    @Test func otherTextAndUnknownOptionsAreRefused() throws {
        for text in ["mysql://db/x", "/var/lib/stowage.sqlite", "postgres://db/x?sslmode=maybe", "postgres://db/x?a=b"]
        {
            let error = try #require(throws: StoreError.self) { try StoreLocation.parse(text, environment: [:]) }
            #expect(error.code == .badLocation, "\(text)")
        }
        #expect(throws: StoreError.self) { try StoreLocation.parse("postgres://db/x", environment: ["PGPORT": "x"]) }
        let typo = try #require(throws: StoreError.self) {
            try StoreLocation.parse("postgress://farm:hunter2@db/x", environment: [:])
        }
        #expect(!typo.message.contains("hunter2"))
    }

    @Test func thePasswordComesFromPGPASSWORDElseTheFirstMatchingPgpassLine() throws {
        let dir = NSTemporaryDirectory() + "stowage-pgpass-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/pgpass"
        let lines = "# comment\nother:5432:stowage:farm:no\ndb:*:stowage:farm:s\\:cret\n*:*:*:*:fallback\n"
        FileManager.default.createFile(atPath: file, contents: Data(lines.utf8), attributes: [.posixPermissions: 0o600])
        let fromFile = PostgresLocation(
            host: "db", port: 5432, user: "farm", database: "stowage", environment: ["PGPASSFILE": file])
        #expect(try fromFile.credentials() == "s:cret")
        let other = PostgresLocation(
            host: "db2", port: 5432, user: "x", database: "y", environment: ["PGPASSFILE": file])
        #expect(try other.credentials() == "fallback")
        let variable = PostgresLocation(
            host: "db", port: 5432, user: "farm", database: "stowage",
            environment: ["PGPASSFILE": file, "PGPASSWORD": "env"])
        #expect(try variable.credentials() == "env")
        // Printed, dumped or logged, a location never shows the password it carries from PGPASSWORD.
        let printed = ["\(variable)", String(reflecting: variable), "\(StoreLocation.postgres(variable))"]
        #expect(printed.allSatisfy { !$0.contains("env") && $0.contains("postgres://farm@db:5432/stowage") })
        var dumped = ""
        dump(StoreLocation.postgres(variable), to: &dumped)
        #expect(!dumped.contains("\"env\""))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let error = try #require(throws: StoreError.self) { try fromFile.credentials() }
        #expect(error.message.contains("chmod 0600"))
    }
}
