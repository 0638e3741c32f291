import GRDB

/// Transactions on either engine, with the guarantees the scheduler relies on: a write is one transaction, a batch is
/// one transaction whose changes are each a savepoint (a change that fails is undone alone), and a failed
/// transaction leaves nothing behind.
enum StoreTransaction {
    /// Runs `body` in a transaction of its own: committed when it returns, rolled back when it throws.
    static func run<T>(_ engine: Store.Engine, _ body: (StoreConnection) throws -> T) throws -> T {
        switch engine {
        case .sqlite(let queue):
            return try queue.write { try body(StoreConnection(.sqlite($0))) }
        case .postgres(let session):
            _ = try session.run("BEGIN", [])
            let result: T
            do {
                result = try body(StoreConnection(.postgres(session)))
            } catch {
                _ = try? session.run("ROLLBACK", [])
                throw error
            }
            do {
                _ = try session.run("COMMIT", [])
            } catch {
                _ = try? session.run("ROLLBACK", [])
                throw error
            }
            return result
        }
    }

    /// Runs `body` in a savepoint of the transaction `connection` is in: released when it returns, rolled back to
    /// (and only it) when it throws.
    static func savepoint<T>(_ connection: StoreConnection, _ body: (StoreConnection) throws -> T) throws -> T {
        switch connection.backend {
        case .sqlite(let db):
            var result: T?
            try db.inSavepoint {
                result = try body(connection)
                return .commit
            }
            return result!
        case .postgres(let session):
            _ = try session.run("SAVEPOINT change", [])
            do {
                let result = try body(connection)
                _ = try session.run("RELEASE SAVEPOINT change", [])
                return result
            } catch {
                _ = try? session.run("ROLLBACK TO SAVEPOINT change", [])
                _ = try? session.run("RELEASE SAVEPOINT change", [])
                throw error
            }
        }
    }
}
