import Foundation
import StowageIntegrity
import StowageStore

extension VerificationComponent {
    /// `gc`: folders under `titles/` the store does not know, and partial files of titles not downloading.
    /// Imports being checked are left alone (their folder is not a title's yet).
    func collectGarbage() throws -> [String] {
        let root = context.home.titlesRoot
        var removed: [String] = []
        let known = Dictionary(uniqueKeysWithValues: try context.store.titles().map { ($0.token, $0.state) })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            let dir = root.appendingPathComponent(name)
            if isStaging(name) { continue }  // an import being checked
            guard let state = known[name] else {
                try? FileManager.default.removeItem(at: dir)
                removed.append(dir.path)
                continue
            }
            guard [.completed, .canceled, .failed].contains(state),
                let walker = FileManager.default.enumerator(atPath: dir.path)
            else { continue }
            for case let path as String in walker where FetchLeftovers.isLeftover(path) {
                try? FileManager.default.removeItem(at: dir.appendingPathComponent(path))
                removed.append(dir.appendingPathComponent(path).path)
            }
        }
        context.logger.info("gc", metadata: ["removed": "\(removed.count)"])
        return removed
    }
}
