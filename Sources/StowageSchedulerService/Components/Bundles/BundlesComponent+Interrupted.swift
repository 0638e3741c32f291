import Foundation
import StowageBundle
import StowageProtocol
import StowageStore

extension BundlesComponent {
    /// The setting that holds the folder of a `--move` export under way (written with the move, removed once the
    /// loop saw the copy end).
    static func pendingMoveKey(_ token: String) -> String { "bundle-move-pending:\(token)" }

    /// Start-up: a `--move` export the previous process did not see end (stopped or killed mid-copy, or before its
    /// end was taken) gave the license up for a bundle no box may be sure to hold whole. What it wrote is removed
    /// (its files, then `bundle.json` and its signature) and the license given back, so it is neither lost nor
    /// held twice. When the folder cannot be reached (a drive not mounted now) the bundle may be whole there: the
    /// move stands, and the log says so at every start until the folder is back.
    func undoInterruptedMoves() {
        guard let titles = try? context.store.titles(state: .completed) else { return }
        for var title in titles where title.transferredTo != nil {
            let key = Self.pendingMoveKey(title.token)
            guard let path = (try? context.store.setting(key)) ?? nil else { continue }
            let folder = URL(fileURLWithPath: path)
            let manifest = folder.appendingPathComponent(BundleLayout.manifestName).path
            let signature = folder.appendingPathComponent(BundleLayout.signatureName).path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue {
                Self.removeWritten((try? exportFiles(title).sources.map(\.path)) ?? [], in: folder)
            }
            guard isDirectory.boolValue, !FileManager.default.fileExists(atPath: manifest),
                !FileManager.default.fileExists(atPath: signature)
            else {
                context.logger.warning(
                    "a --move export was interrupted and its folder cannot be cleared: the move stands",
                    metadata: ["token": "\(title.token)", "folder": "\(path)"])
                continue
            }
            do {
                title.transferredTo = nil
                try context.store.update(title)
                try context.desk.record(.license(title.token, "move undone: the export was interrupted"))
                try context.store.removeSetting(key)
                context.logger.notice(
                    "an interrupted --move export was undone: the license is back",
                    metadata: ["token": "\(title.token)", "folder": "\(path)"])
            } catch {
                context.logger.error(
                    "an interrupted --move export could not be undone",
                    metadata: ["token": "\(title.token)", "error": "\(error)"])
            }
        }
    }
}
