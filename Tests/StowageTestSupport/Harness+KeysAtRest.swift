import Foundation
import StowageProtocol

/// Where a content key was found at rest: each place as `file: form` (empty: nowhere), and every file looked in.
public struct KeyAtRestReport: Sendable {
    public var found: [String] = []
    public var searched: [String] = []
}

extension Harness {
    /// Looks for a content key everywhere this box keeps something: every file under the home (the store
    /// `stowage.sqlite`, its `-wal` and `-shm`, `logs/`, `titles/<token>/`, the key folders) and every process's
    /// log in the test root; in every form a key is written as: its bytes, hex (lower and upper case) and base64
    /// (standard and url-safe, unpadded, so the padded forms are found too).
    ///
    /// Call it while the scheduler runs: SQLite in WAL mode writes every change to `stowage.sqlite-wal` first and
    /// folds it into the main file only at a checkpoint (and a clean close removes the `-wal`), so a key stored in
    /// the clear may be in the `-wal` alone. Throws when the store or its `-wal` is missing, so a search that looked
    /// in neither cannot pass.
    public func keyAtRest(_ key: [UInt8]) throws -> KeyAtRestReport {
        for suffix in ["", "-wal"] {
            let path = home.appendingPathComponent("stowage.sqlite" + suffix).path
            guard FileManager.default.fileExists(atPath: path) else {
                throw HarnessError("\(path) is missing: look for keys at rest while the scheduler runs")
            }
        }
        var files: [(name: String, url: URL)] = []
        if let walk = FileManager.default.enumerator(at: home, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walk
            where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                files.append((String(url.path.dropFirst(home.path.count + 1)), url))
            }
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) where name.hasSuffix(".log") {
            files.append((name, root.appendingPathComponent(name)))
        }
        var report = KeyAtRestReport()
        let forms = Self.keyForms(key)
        for file in files {
            // A file removed while we look (a finished `.part`) held nothing to find.
            guard let bytes = try? Data(contentsOf: file.url) else { continue }
            report.searched.append(file.name)
            for (form, pattern) in forms where bytes.range(of: pattern) != nil {
                report.found.append("\(file.name): \(form)")
            }
        }
        return report
    }

    /// A key as it could be written: bytes, hex, HEX, base64 and base64url (both unpadded).
    static func keyForms(_ key: [UInt8]) -> [(String, Data)] {
        let hex = Hex.encode(key)
        let base64 = Data(key).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let base64url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return [
            ("bytes", Data(key)), ("hex", Data(hex.utf8)), ("HEX", Data(hex.uppercased().utf8)),
            ("base64", Data(base64.utf8)), ("base64url", Data(base64url.utf8)),
        ]
    }
}
