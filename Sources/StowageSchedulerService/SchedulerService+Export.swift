import Foundation
import StowageBundle
import StowageLicensing
import StowageProtocol
import StowageStore

extension SchedulerService {
    /// `stowctl export`: checks the request on the loop (the title, the folder, the receiving box's key), seals the
    /// content keys for that box, gives up the license with `--move`, then copies the files on a thread of its own.
    /// Answers the job, running; ``finishBundleJobs()`` takes its end.
    func startExport(_ request: BundleExportRequest) throws -> BundleJob {
        guard var title = try store.title(request.token) else { throw unknownTitle(request.token) }
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
        guard !bundleJobs.running(directory: directory.path, token: title.token) else {
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
            box: box.publicKey, exportedAt: clock.now(),
            title: .init(id: title.externalID, token: title.token, sourceURL: title.url, displayName: title.name),
            plan: try storedPlan(title), files: [], terms: title.licenseTerms, usage: usage(of: title),
            protection: title.protection, moved: request.move, exportID: Self.newToken())
        // Sealed under the manifest's binding: its export id, terms, plays so far and `moved`.
        manifest.keys = try sealedKeys(title, for: recipient, binding: manifest.keyBinding())
        if request.move {
            // Given up before the first byte is copied: a play meanwhile would be a play the bundle does not carry.
            title.transferredTo = recipient?.id ?? ""
            try store.update(title)
            try record(.license(title.token, "moved to \(recipient.map { "box \($0.id)" } ?? "a bundle")"))
        }
        var job = BundleJob(
            id: Self.newToken(), kind: .export, directory: directory.path, token: title.token,
            bytesTotal: files.bytes)
        job.moved = request.move
        job.note = recipient == nil && !manifest.plan.keys.isEmpty ? "no content key leaves this box" : nil
        bundleJobs.add(job)
        logger.info(
            "export started",
            metadata: ["token": "\(title.token)", "directory": "\(directory.path)", "job": "\(job.id)"])
        let (id, jobs, identity, sources, expected) = (job.id, bundleJobs, box, files.sources, files.hashes)
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
                    }, progress: { jobs.progress(id, bytes: $0) })
                // The bytes read now must be those verified when they arrived: a file changed at rest since is not
                // carried to another box as if it were good.
                for file in written.files where expected[file.path].map({ $0 != file.sha256 }) == true {
                    throw BundleProblem(
                        .hash, file: file.path, "changed on this box since it was verified: `stowctl verify` the title")
                }
                jobs.post(.exported(id: id, manifest: written))
            } catch {
                Self.removeWritten(sources.map(\.path), in: directory)
                jobs.post(.failed(id: id, Self.bundleProblem(error, file: directory.path)))
            }
        }
        return job
    }

    /// The export's end, on the loop: a failed `--move` gives the license back (the other box got nothing).
    func finishExport(_ id: String, problem: BundleProblem?) {
        guard let job = bundleJobs.job(id), let token = job.token else { return }
        if let problem {
            if job.moved, var title = try? store.title(token), title.transferredTo != nil {
                title.transferredTo = nil
                try? store.update(title)
                try? record(.license(token, "move undone: the export failed"))
            }
            logger.warning("export failed", metadata: ["token": "\(token)", "problem": "\(problem)"])
        } else {
            logger.info("exported", metadata: ["token": "\(token)", "directory": "\(job.directory)"])
        }
        bundleJobs.end(id) { job in
            job.state = problem == nil ? .done : .failed
            job.error = problem.map(Self.titleError)
            job.problem = problem.map { BundleJob.Problem(code: $0.code.rawValue, file: $0.file) }
        }
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
    private func exportFiles(_ title: TitleRecord) throws -> (
        sources: [(source: URL, path: String)], bytes: Int64, hashes: [String: String]
    ) {
        let dir = options.home.titleDirectory(title.token)
        var seen = Set<String>()
        var sources: [(source: URL, path: String)] = []
        var bytes: Int64 = 0
        var hashes: [String: String] = [:]
        for resource in try store.resources(token: title.token)
        where resource.state == .verified && seen.insert(resource.localPath).inserted {
            sources.append((dir.appendingPathComponent(resource.localPath), resource.localPath))
            bytes += resource.bytes ?? 0
            hashes[resource.localPath] = resource.sha256
        }
        for (path, _) in try offlinePlaylists(title).files where seen.insert(path).inserted {
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
        let stored = try store.keys(token: title.token)
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

    /// A bundle problem from whatever a copy threw.
    static func bundleProblem(_ error: any Error, file: String) -> BundleProblem {
        if let problem = error as? BundleProblem { return problem }
        return BundleProblem(.io, file: file, error.localizedDescription)
    }

    /// The error `stowctl` shows for a bundle problem: files that are not as listed are an `integrity` failure,
    /// a signature or trust or key refusal is `refused`, a read or write that failed is `io`. The message names the
    /// file.
    static func titleError(_ problem: BundleProblem) -> TitleError {
        let code: ErrorCode
        switch problem.code {
        case .missing, .extra, .size, .hash: code = .integrity
        case .signature, .untrusted, .malformed, .keys, .limit, .path, .taken, .replayed: code = .refused
        case .io: code = .io
        }
        return TitleError(code: code, message: problem.description)
    }
}
