import Foundation
import StowageBundle
import StowageLicensing
import StowageProtocol
import StowageStore

extension BundlesComponent {
    /// `stowctl import`: the signature, the listing and every byte are checked on a thread of its own while the
    /// files are copied into a staging folder under `titles/` (see ``BundleFolder``); the loop registers the title
    /// once they all are (``registerImport(_:manifest:staging:)``). Answers the job.
    func startImport(_ request: BundleImportRequest) throws -> BundleJob {
        guard request.directory.hasPrefix("/") else {
            throw TitleError(
                code: .refused, message: "the bundle folder must be an absolute path: \(request.directory)")
        }
        let root = URL(fileURLWithPath: request.directory).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TitleError(code: .notFound, message: "no bundle folder at \(root.path)")
        }
        let trusted = try Set(
            request.trusted.map { text in
                guard let key = try? JSONDecoder().decode(BoxPublicKey.self, from: Data(text.utf8)), key.signing != nil
                else {
                    throw TitleError(
                        code: .refused, message: "a --trust key is not a box public key (see `stowctl box key`)")
                }
                return key
            })
        let job = BundleJob(
            id: SchedulerService.newToken(), kind: .import, directory: root.path, token: nil, bytesTotal: 0)
        jobs.add(job)
        context.logger.info("import started", metadata: ["directory": "\(root.path)", "job": "\(job.id)"])
        let staging = context.home.titlesRoot.appendingPathComponent(BundleJobs.stagingName(job.id))
        let (id, reports, trustAny) = (job.id, self.reports, request.trustAny)
        Thread.detachNewThread {
            do {
                // The bar's total comes from the stage once the signature verified and the sizes added up within
                // the limits: nothing of the manifest is believed before.
                let manifest = try BundleFolder(root: root).stage(
                    into: staging, trusted: trusted, trustAny: trustAny,
                    total: { reports.post(.total(id: id, bytes: $0)) },
                    progress: { reports.post(.copied(id: id, bytes: $0)) })
                reports.post(.ended(.staged(id: id, manifest: manifest, staging: staging)))
            } catch {
                reports.post(
                    .ended(.failed(id: id, BundlesComponent.bundleProblem(error, file: BundleLayout.manifestName))))
            }
        }
        return job
    }

    /// Takes a staged bundle in, all or nothing: the keys opened and wrapped under this box's master key, the
    /// staging folder renamed to `titles/<token>/`, and the title, its plan, its verified files and keys written in
    /// one store transaction that ends `completed` through the lifecycle (``TitleDesk/adopt(_:fill:last:)``). Any
    /// failure removes the folder and nothing of the title stays in the store.
    func registerImport(_ id: String, manifest: BundleManifest, staging: URL) {
        // Always a token of this box's own: the bundle's token names nothing here (it may be another title's
        // token or id on this box, or a path), so it is never used as one.
        let token = SchedulerService.newToken()
        let dir = context.home.titleDirectory(token)
        let store = context.store
        var note: String?
        do {
            try checkImportable(manifest)
            let (wrapped, keyNote) = try importedKeys(manifest, token: token)
            note = keyNote
            let plan = importedPlan(manifest.plan)
            try FileManager.default.moveItem(at: staging, to: dir)
            try context.desk.adopt(
                importedRecord(manifest, token: token),
                fill: {
                    try store.savePlan(token: token, plan: plan)
                    try store.markImported(
                        token: token,
                        files: Dictionary(
                            manifest.files.map { ($0.path, Store.ImportedFile(size: $0.size, sha256: $0.sha256)) },
                            uniquingKeysWith: { first, _ in first }))
                    try store.saveWrappedKeys(token: token, wrapped)
                    try context.desk.record(
                        TitleHappening(
                            token, kind: "import",
                            detail: "imported from box \(manifest.box.id) (bundle of \(manifest.title.token))"
                                + (keyNote.map { ": \($0)" } ?? "")))
                },
                last: {
                    // Last: a --move bundle is only remembered once nothing else can fail; a second import racing
                    // this one fails here on the export id.
                    if manifest.moved, let exportID = manifest.exportID {
                        try store.rememberImport(
                            exportID: exportID, token: token, fromBox: manifest.box.id, at: context.clock.now())
                    }
                })
        } catch {
            try? FileManager.default.removeItem(at: staging)
            if (try? store.title(token)) == nil { try? FileManager.default.removeItem(at: dir) }
            let problem = Self.bundleProblem(error, file: BundleLayout.manifestName)
            context.logger.warning("import failed", metadata: ["job": "\(id)", "problem": "\(problem)"])
            return end(id, problem: problem)
        }
        context.logger.info("imported", metadata: ["token": "\(token)", "from": "\(manifest.box.id)", "job": "\(id)"])
        jobs.end(id) { job in
            job.state = .done
            job.token = token
            job.note = note
        }
    }

    /// The content keys the bundle carries for this box, wrapped under this box's master key by plan index; keys
    /// sealed for another box (or none at all) leave the title waiting for a license acquired online, said in the
    /// note. Keys for this box that do not open refuse the import.
    private func importedKeys(_ manifest: BundleManifest, token: String) throws -> ([Int: Data], String?) {
        let planned = manifest.plan.keys
        guard !planned.isEmpty else { return ([:], nil) }
        guard let sealed = manifest.keys else {
            return ([:], "the bundle carries no content key (exported without --for-box): `stowctl renew` online")
        }
        guard sealed.forBox == box.publicKey.id else {
            return ([:], "the bundle's content keys are for box \(sealed.forBox), not this box: `stowctl renew` online")
        }
        var wrapped: [Int: Data] = [:]
        for (name, key) in try sealed.open(with: box, token: manifest.title.token, binding: manifest.keyBinding()) {
            guard let index = Int(name), planned.indices.contains(index),
                key.count == PlannedKey.keyLength(method: planned[index].method)
            else {
                throw BundleProblem(
                    .keys, file: BundleLayout.manifestName, "content key \(name) is not one of the plan's")
            }
            wrapped[index] = try vault.wrap(key, token: token, index: index)
        }
        return (wrapped, nil)
    }

    /// The title as registered here: the exporting box's source, terms and plays so far (an absolute expiry stays
    /// absolute), requested now, `requested` until the lifecycle completes it in the same transaction (which counts
    /// its license from this box's clock epoch).
    private func importedRecord(_ manifest: BundleManifest, token: String) -> TitleRecord {
        let now = context.clock.now()
        var record = TitleRecord(
            token: token, url: manifest.title.sourceURL, name: manifest.title.displayName, state: .requested,
            priority: 0, selection: Selection(), headers: [], requestedAt: now)
        record.startedAt = now
        record.externalID = manifest.title.id  // checked free by ``checkImportable(_:)``
        record.licenseTerms = manifest.terms
        record.playCount = manifest.usage?.playCount ?? 0
        record.firstPlayedAt = manifest.usage?.firstPlayedAt
        record.playedSeconds = manifest.usage?.playedSeconds ?? 0
        record.reach = nil  // re-derived from the source URL under this box's policy, as for a submit
        record.allowDeviceDRM = manifest.plan.protection?.deviceOnly ?? false
        let master = manifest.plan.masterPlaylist
        record.localPlaylist =
            manifest.plan.manifestName ?? (master.isEmpty ? manifest.plan.renditions.first?.localPath : "master.m3u8")
        return record
    }
}
