import Foundation
import StowageBundle
import StowageLicensing
import StowageProtocol
import StowageStore

extension SchedulerService {
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
        let job = BundleJob(id: Self.newToken(), kind: .import, directory: root.path, token: nil, bytesTotal: 0)
        bundleJobs.add(job)
        logger.info("import started", metadata: ["directory": "\(root.path)", "job": "\(job.id)"])
        let staging = options.home.titlesRoot.appendingPathComponent(BundleJobs.stagingName(job.id))
        let (id, jobs, trustAny) = (job.id, bundleJobs, request.trustAny)
        Thread.detachNewThread {
            do {
                // The bar's total comes from the stage once the signature verified and the sizes added up within
                // the limits: nothing of the manifest is believed before.
                let manifest = try BundleFolder(root: root).stage(
                    into: staging, trusted: trusted, trustAny: trustAny,
                    total: { total in jobs.update(id) { $0.bytesTotal = total } },
                    progress: { jobs.progress(id, bytes: $0) })
                jobs.post(.staged(id: id, manifest: manifest, staging: staging))
            } catch {
                jobs.post(.failed(id: id, Self.bundleProblem(error, file: BundleLayout.manifestName)))
            }
        }
        return job
    }

    /// Takes a staged bundle in, all or nothing: the keys opened and wrapped under this box's master key, the
    /// staging folder renamed to `titles/<token>/`, and the title, its plan, its verified files and keys written in
    /// one store transaction that ends `completed` through the lifecycle. Any failure removes the folder and the
    /// transaction writes nothing.
    func registerImport(_ id: String, manifest: BundleManifest, staging: URL) {
        // Always a token of this box's own: the bundle's token names nothing here (it may be another title's
        // token or id on this box, or a path), so it is never used as one.
        let token = Self.newToken()
        let dir = options.home.titleDirectory(token)
        var note: String?
        do {
            try checkImportable(manifest)
            let (wrapped, keyNote) = try importedKeys(manifest, token: token)
            note = keyNote
            let record = importedRecord(manifest, token: token)
            let plan = importedPlan(manifest.plan)
            try FileManager.default.moveItem(at: staging, to: dir)
            var failure: (any Error)?
            try inOneTransaction {
                do {
                    try store.insert(record)
                    try store.savePlan(token: token, plan: plan)
                    try store.markImported(
                        token: token,
                        files: Dictionary(
                            manifest.files.map { ($0.path, Store.ImportedFile(size: $0.size, sha256: $0.sha256)) },
                            uniquingKeysWith: { first, _ in first }))
                    try store.saveWrappedKeys(token: token, wrapped)
                    try self.record(
                        TitleHappening(
                            token, kind: "import",
                            detail: "imported from box \(manifest.box.id) (bundle of \(manifest.title.token))"
                                + (note.map { ": \($0)" } ?? "")))
                    try handle(.allVerified, of: token)
                    // Last: the batch commits even when a step fails (the title is deleted in its place), so a
                    // --move bundle is only remembered once nothing else can fail; a second import racing this
                    // one fails here on the export id.
                    if manifest.moved, let exportID = manifest.exportID {
                        try store.rememberImport(
                            exportID: exportID, token: token, fromBox: manifest.box.id, at: clock.now())
                    }
                } catch {
                    failure = error
                    try? store.delete(token: token)
                }
            }
            if let failure { throw failure }
        } catch {
            try? FileManager.default.removeItem(at: staging)
            if (try? store.title(token)) == nil { try? FileManager.default.removeItem(at: dir) }
            let problem = Self.bundleProblem(error, file: BundleLayout.manifestName)
            logger.warning("import failed", metadata: ["job": "\(id)", "problem": "\(problem)"])
            return bundleJobs.end(id) { job in
                job.state = .failed
                job.error = Self.titleError(problem)
                job.problem = BundleJob.Problem(code: problem.code.rawValue, file: problem.file)
            }
        }
        logger.info("imported", metadata: ["token": "\(token)", "from": "\(manifest.box.id)", "job": "\(id)"])
        bundleJobs.end(id) { job in
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
    /// absolute), requested now, `requested` until the lifecycle completes it in the same transaction.
    private func importedRecord(_ manifest: BundleManifest, token: String) -> TitleRecord {
        let now = clock.now()
        var record = TitleRecord(
            token: token, url: manifest.title.sourceURL, name: manifest.title.displayName, state: .requested,
            priority: 0, selection: Selection(), headers: [], requestedAt: now)
        record.startedAt = now
        record.externalID = manifest.title.id  // checked free by ``checkImportable(_:)``
        record.licenseTerms = manifest.terms
        record.licenseEpoch = memory.clockEpoch.epoch
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

    /// The offline plan as stored: what a bundle carries so another box holds the same title.
    func storedPlan(_ title: TitleRecord) throws -> ResolvedPlan {
        try storedPlan(title, resources: store.resources(token: title.token))
    }

    /// The offline plan as stored, over the title's resource rows already read (in the store's order).
    func storedPlan(_ title: TitleRecord, resources records: [ResourceRecord]) throws -> ResolvedPlan {
        let renditions = try store.renditions(token: title.token).map {
            PlannedRendition(
                kind: $0.kind, sourceURL: $0.sourceURL, localPath: $0.localPath, playlist: $0.playlist,
                language: $0.language)
        }
        let resources = records.map { r in
            var planned = PlannedResource(
                kind: r.kind, rendition: r.rendition, url: r.url, rangeOffset: r.rangeOffset,
                rangeLength: r.rangeLength, localPath: r.localPath, container: r.container, encrypted: r.encrypted,
                duration: r.duration)
            planned.alternates = r.alternates
            planned.cipher = r.cipher
            return planned
        }
        let keys = try store.keys(token: title.token).map {
            PlannedKey(uri: $0.uri, method: $0.method, keyFormat: $0.keyFormat, keyID: $0.keyID)
        }
        let bookmarks = try store.bookmarks(token: title.token).filter { $0.kind == .index }.map {
            Bookmark(position: $0.position, label: $0.label, kind: .index)
        }
        var plan = ResolvedPlan(
            masterPlaylist: title.masterPlaylist ?? "", renditions: renditions, resources: resources,
            bytesEstimate: title.bytesEstimate, keys: keys, bookmarks: bookmarks, manifestName: title.manifestName,
            protection: title.protection)
        plan.reach = title.reach
        return plan
    }

    /// Start-up: an import the previous process was checking left its staging folder; no job of this process owns
    /// it, and the store never knew its title.
    func removeStaleStaging() {
        let root = options.home.titlesRoot
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        where name.hasPrefix(".import-") {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
            logger.info("removed an interrupted import's staging folder", metadata: ["folder": "\(name)"])
        }
    }

    /// Every tick: the ends of exports and imports whose copying finished.
    func finishBundleJobs() {
        for outcome in bundleJobs.take() {
            switch outcome {
            case .exported(let id, _):
                finishExport(id, problem: nil)
            case .staged(let id, let manifest, let staging):
                registerImport(id, manifest: manifest, staging: staging)
            case .failed(let id, let problem):
                if bundleJobs.job(id)?.kind == .export {
                    finishExport(id, problem: problem)
                } else {
                    logger.warning("import refused", metadata: ["job": "\(id)", "problem": "\(problem)"])
                    bundleJobs.end(id) { job in
                        job.state = .failed
                        job.error = Self.titleError(problem)
                        job.problem = BundleJob.Problem(code: problem.code.rawValue, file: problem.file)
                    }
                }
            }
        }
    }
}
