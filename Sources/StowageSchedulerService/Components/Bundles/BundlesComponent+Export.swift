import Foundation
import StowageBundle
import StowageLicensing
import StowageProtocol
import StowageStore

extension BundlesComponent {
    /// `stowctl export`: checks the request on the loop (the title, the folder, the receiving box's key), seals the
    /// content keys for that box, gives up the license with `--move`, then copies the files on a thread of its own.
    /// Answers the job, running; the loop takes its end at a tick (``finishExport(_:problem:)``).
    func startExport(_ request: BundleExportRequest) throws -> BundleJob {
        guard var title = try context.store.title(request.token) else { throw TitleError.noTitle(request.token) }
        guard title.state == .completed, title.localPlaylist != nil else {
            throw TitleError(
                code: .refused,
                message: "title \(title.token) is \(title.state.rawValue): only a completed title can be exported")
        }
        if let box = title.transferredTo {
            throw TitleError(
                code: .refused,
                message: "title \(title.token) was already moved to \(box.isEmpty ? "another box" : "box \(box)")")
        }
        let directory = try exportFolder(request.directory)
        guard !jobs.running(directory: directory.path, token: title.token) else {
            throw TitleError(code: .refused, message: "an export of \(title.token) or into \(directory.path) runs")
        }
        let recipient = try request.forBox.map { text in
            guard let key = try? JSONDecoder().decode(BoxPublicKey.self, from: Data(text.utf8)), key.signing != nil,
                key.agreement != nil
            else {
                throw TitleError(
                    code: .refused, message: "--for-box is not a box public key (make one with `stowctl box key`)")
            }
            return key
        }
        let files = try exportFiles(title)
        if let missing = files.sources.first(where: { !FileManager.default.fileExists(atPath: $0.source.path) }) {
            throw TitleError(
                code: .integrity,
                message: "\(missing.path) of title \(title.token) is missing: `stowctl verify --repair` it first")
        }
        var manifest = BundleManifest(
            box: box.publicKey, exportedAt: context.clock.now(),
            title: .init(id: title.externalID, token: title.token, sourceURL: title.url, displayName: title.name),
            plan: try context.store.storedPlan(title), files: [], terms: title.licenseTerms,
            usage: title.licenseUsage, protection: title.protection, moved: request.move,
            exportID: SchedulerService.newToken())
        // Sealed under the manifest's binding: its export id, terms, plays so far and `moved`.
        manifest.keys = try sealedKeys(title, for: recipient, binding: manifest.keyBinding())
        if request.move {
            // Given up before the first byte is copied: a play meanwhile would be a play the bundle does not carry.
            title.transferredTo = recipient?.id ?? ""
            try context.store.update(title)
            // Until the loop sees the copy end: a process stopped before gives the license back at its next start
            // (``undoInterruptedMoves()``), for which the folder is made now (the copy would make it first thing).
            try context.store.setSetting(Self.pendingMoveKey(title.token), directory.path)
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try context.desk.record(
                .license(title.token, "moved to \(recipient.map { "box \($0.id)" } ?? "a bundle")"))
        }
        var job = BundleJob(
            id: SchedulerService.newToken(), kind: .export, directory: directory.path, token: title.token,
            bytesTotal: files.bytes)
        job.moved = request.move
        job.note = recipient == nil && !manifest.plan.keys.isEmpty ? "no content key leaves this box" : nil
        jobs.add(job)
        context.logger.info(
            "export started",
            metadata: ["token": "\(title.token)", "directory": "\(directory.path)", "job": "\(job.id)"])
        let (id, reports, identity, sources, expected) = (job.id, self.reports, box, files.sources, files.hashes)
        manifest.files = []
        let base = manifest
        Thread.detachNewThread {
            do {
                let written = try BundleFolder(root: directory).write(
                    files: sources, identity: identity,
                    makeManifest: { listed in
                        var manifest = base
                        manifest.files = listed
                        return manifest
                    }, progress: { reports.post(.copied(id: id, bytes: $0)) })
                // The bytes read now must be those verified when they arrived: a file changed at rest since is not
                // carried to another box as if it were good.
                for file in written.files where expected[file.path].map({ $0 != file.sha256 }) == true {
                    throw BundleProblem(
                        .hash, file: file.path, "changed on this box since it was verified: `stowctl verify` the title")
                }
                reports.post(.ended(.exported(id: id, manifest: written)))
            } catch {
                BundlesComponent.removeWritten(sources.map(\.path), in: directory)
                reports.post(.ended(.failed(id: id, BundlesComponent.bundleProblem(error, file: directory.path))))
            }
        }
        return job
    }

    /// The export's end, on the loop: a failed `--move` gives the license back (the other box got nothing).
    func finishExport(_ id: String, problem: BundleProblem?) {
        guard let job = jobs.job(id), let token = job.token else { return }
        if job.moved { try? context.store.removeSetting(Self.pendingMoveKey(token)) }
        if let problem {
            if job.moved, var title = try? context.store.title(token), title.transferredTo != nil {
                title.transferredTo = nil
                try? context.store.update(title)
                try? context.desk.record(.license(token, "move undone: the export failed"))
            }
            context.logger.warning("export failed", metadata: ["token": "\(token)", "problem": "\(problem)"])
            return end(id, problem: problem)
        }
        context.logger.info("exported", metadata: ["token": "\(token)", "directory": "\(job.directory)"])
        jobs.end(id) { $0.state = .done }
    }

    /// The folder an export writes: absolute, and new or empty (a bundle holds its own files only).
    private func exportFolder(_ path: String) throws -> URL {
        guard path.hasPrefix("/") else {
            throw TitleError(code: .refused, message: "the export folder must be an absolute path: \(path)")
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: url.path), !existing.isEmpty {
            throw TitleError(code: .refused, message: "\(url.path) is not empty: export into a new or empty folder")
        }
        return url
    }

    /// The files of the offline copy (plan order, then the offline playlists), their bytes, and the hash each
    /// resource was verified with.
    func exportFiles(_ title: TitleRecord) throws -> (
        sources: [(source: URL, path: String)], bytes: Int64, hashes: [String: String]
    ) {
        let dir = context.home.titleDirectory(title.token)
        var seen = Set<String>()
        var sources: [(source: URL, path: String)] = []
        var bytes: Int64 = 0
        var hashes: [String: String] = [:]
        // Not the files the box writes itself (its subtitles as text, its single file): they are in no plan, and
        // a box importing the title writes its own subtitles at its next `verify` (a single file is as large as
        // the copy: it would double the bundle; `stowctl remux` makes one there).
        for resource in try context.store.resources(token: title.token)
        where resource.state == .verified && !resource.kind.isWrittenByBox && seen.insert(resource.localPath).inserted {
            sources.append((dir.appendingPathComponent(resource.localPath), resource.localPath))
            bytes += resource.bytes ?? 0
            hashes[resource.localPath] = resource.sha256
        }
        for (path, _) in try context.store.offlinePlaylists(title).files where seen.insert(path).inserted {
            let url = dir.appendingPathComponent(path)
            sources.append((url, path))
            bytes +=
                ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?
                .int64Value ?? 0
        }
        return (sources, bytes, hashes)
    }

    /// The title's content keys sealed for `recipient` (by plan index) under the manifest's `binding`; nil without
    /// a recipient or keys.
    private func sealedKeys(_ title: TitleRecord, for recipient: BoxPublicKey?, binding: Data) throws -> WrappedKeys? {
        guard let recipient else { return nil }
        let stored = try context.store.keys(token: title.token)
        guard !stored.isEmpty else { return nil }
        var keys: [(name: String, key: [UInt8])] = []
        for record in stored {
            guard let wrapped = record.wrapped else {
                throw TitleError(
                    code: .license, message: "title \(title.token) has no content key \(record.position) to carry")
            }
            keys.append(("\(record.position)", try vault.unwrap(wrapped, token: title.token, index: record.position)))
        }
        do { return try WrappedKeys.seal(keys, token: title.token, binding: binding, for: recipient) } catch {
            throw Self.titleError(Self.bundleProblem(error, file: "--for-box"))
        }
    }

    /// Removes what a failed export wrote into its folder (which was new or empty when asked): the top-level
    /// entries of the files it copies and the manifest with its signature, nothing else a person put there since.
    static func removeWritten(_ paths: [String], in directory: URL) {
        let tops = Set(paths.compactMap { $0.split(separator: "/").first.map(String.init) })
        for name in tops.union([BundleLayout.manifestName, BundleLayout.signatureName]) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}
