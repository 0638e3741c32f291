import Foundation
import StowageLicensing
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// Keys a recording meets during the event (key rotation): fetched by key-only license tasks beside the terms
/// granted at the start, which stay as they are.
extension RecordingComponent {
    /// Whether a recording whose files are all verified still waits for the keys it met last (unless acquiring them
    /// failed: then it completes unplayable).
    func waitsForKeys(_ title: TitleRecord) throws -> Bool {
        guard title.record != nil, title.licenseError == nil else { return false }
        return try context.store.keys(token: title.token).contains(where: { $0.wrapped == nil })
    }

    /// A recording's keys met during the event but not acquired yet (the task was lost to a restart or a
    /// suspension): a key-only license task fetches them.
    func queueMissingKeys(_ title: TitleRecord) throws {
        guard title.record != nil, title.licenseTerms != nil,
            try context.store.keys(token: title.token).contains(where: { $0.wrapped == nil })
        else { return }
        try acquireMissingKeys(title.token)
    }

    /// A recording's keys not acquired yet: a key-only license task fetches them; a title licensed with operator
    /// keys (`submit --key`, several KID:KEY pairs for the Periods to come) takes those given for their key IDs.
    func acquireMissingKeys(_ token: String) throws {
        guard let title = try context.store.title(token) else { return }
        guard title.isOperatorLicensed, let given = title.operatorKeys else {
            return pipeline.enqueue(WorkItem(token: token, kind: .license), at: nil)
        }
        var raw: [Int: [UInt8]] = [:]
        for key in try context.store.keys(token: token) where key.wrapped == nil {
            guard let id = key.keyID.flatMap(KeyEncoding.hex).map(KeyEncoding.hexString), let wrapped = given[id]
            else {
                var failed = title
                let message =
                    "the recording met key ID \(key.keyID ?? "(none)"), which no --key gives: "
                    + "what it protects cannot be played"
                failed.licenseError = message
                try context.store.update(failed)
                try context.desk.record(.license(token, kind: "license-error", message))
                return try pipeline.checkComplete(token)
            }
            raw[key.position] = try pipeline.vault.unwrap(
                wrapped, token: LicensingComponent.operatorKeyScope(token, id), index: 0)
        }
        try store(raw, token: token)
        try context.desk.record(TitleHappening(token, kind: "key", detail: "\(raw.count) operator key(s) applied"))
        try pipeline.checkComplete(token)
    }

    /// Wraps keys (position → bytes) for `token` and stores them.
    private func store(_ raw: [Int: [UInt8]], token: String) throws {
        var wrapped: [Int: Data] = [:]
        for (position, bytes) in raw {
            wrapped[position] = try pipeline.vault.wrap(bytes, token: token, index: position)
        }
        try context.store.saveWrappedKeys(token: token, wrapped)
    }

    /// The key-only license work for `title`'s keys not acquired yet, remembered under `taskID` (nil: none is
    /// missing, the task no longer applies).
    func keysOnlyWork(_ title: TitleRecord, keys: [ContentKeyRecord], taskID: String) -> LicenseWork? {
        let missing = keys.filter { $0.wrapped == nil }
        guard !missing.isEmpty else { return nil }
        keyRequests[taskID] = missing.map(\.position)
        var work = LicenseWork(url: title.url, headers: title.headers, keyURIs: missing.map(\.uri))
        work.keys = missing.map {
            PlannedKey(uri: $0.uri, method: $0.method, keyFormat: $0.keyFormat, keyID: $0.keyID)
        }
        work.keysOnly = true
        return work
    }

    /// Whether `task` is a key-only task of a recording.
    func isKeyRequest(_ task: String) -> Bool { keyRequests[task] != nil }

    /// A key-only task failed: the licensing path handles the failure; the request is forgotten.
    func keyRequestFailed(_ task: String) { keyRequests[task] = nil }

    /// Keys a key-only task fetched: wrapped and stored at their positions. Returns the failure for the licensing
    /// path to handle when the answer is not the keys asked for (nil: stored).
    func applyKeys(_ grant: LicenseGrant, lease: Lease) throws -> TaskFailure? {
        let token = lease.item.token
        let positions = keyRequests.removeValue(forKey: lease.taskID) ?? []
        guard grant.keys.count == positions.count else {
            return TaskFailure(
                code: .license, message: "license worker returned \(grant.keys.count) of \(positions.count) keys",
                retryable: true)
        }
        var raw: [Int: [UInt8]] = [:]
        let methods = Dictionary(try context.store.keys(token: token).map { ($0.position, $0.method) }) { a, _ in a }
        for (i, text) in grant.keys.enumerated() {
            let length = PlannedKey.keyLength(method: methods[positions[i]] ?? "AES-128")
            guard let key = Data(base64Encoded: text), key.count == length else {
                let message = "key \(positions[i]) is not a \(length)-byte key"
                return TaskFailure(code: .license, message: message, retryable: false)
            }
            raw[positions[i]] = Array(key)
        }
        try store(raw, token: token)
        try context.desk.record(TitleHappening(token, kind: "key", detail: "\(positions.count) key(s) acquired"))
        if try context.store.keys(token: token).contains(where: { $0.wrapped == nil }) {
            pipeline.enqueue(WorkItem(token: token, kind: .license), at: nil)
        }
        try pipeline.checkComplete(token)
        return nil
    }
}
