import Foundation
import StowageTestSupport
import Testing

@testable import StowageStore

/// The engines every store test runs on (`@Test(arguments: Engine.allCases)`): one contract, one suite. PostgreSQL
/// is the tests' own server (``TestPostgres``), a fresh database per test; a missing server fails the test.
enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Where a fresh, empty store of this engine lives (a file in a new folder, or a new database), for tests that
    /// open it twice.
    func location() throws -> StoreLocation {
        switch self {
        case .sqlite:
            let dir = NSTemporaryDirectory() + "stowage-store-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            return .sqlite(path: dir + "/s.sqlite")
        case .postgres:
            return try StoreLocation.parse(TestPostgres.shared().createDatabase())
        }
    }

    /// A fresh, empty store (SQLite in memory).
    func store() throws -> Store {
        switch self {
        case .sqlite: try Store()
        case .postgres: try Store(location: location())
        }
    }
}
