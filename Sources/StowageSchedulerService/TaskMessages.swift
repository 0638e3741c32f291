import Foundation
import StowageLicensing
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// What a worker is sent for a leased item, read from the store: the resolve, license, reload, fetch and verify
/// work, a title's request headers and fetch scope (cached per title: they change only when its reach is learnt or
/// its source moves), and the key a check needs inside a ciphertext. The leases themselves stay in the service;
/// this type only builds messages, consulting the concerns that change them (peer fill, recordings, licensing,
/// verification at rest) through the registry.
final class TaskMessages {
    private let store: Store
    private let vault: KeyVault
    private let options: SchedulerOptions
    private let components: ComponentRegistry
    /// Whether a resource's file is new to its folder (the title's first fetch of it; nil: unknown).
    private let isFresh: (String, Int64) -> Bool?
    private var caches = TitleCaches()

    init(
        store: Store, vault: KeyVault, options: SchedulerOptions, components: ComponentRegistry,
        isFresh: @escaping (String, Int64) -> Bool?
    ) {
        self.store = store
        self.vault = vault
        self.options = options
        self.components = components
        self.isFresh = isFresh
    }

    private var peer: PeerComponent? { components.first(PeerComponent.self) }

    /// The title stopped or ended (or its source moved): its headers and scope are read again when needed.
    func forget(_ token: String) { caches.forget(token) }

    /// The title's reach or source changed: its scope is computed again.
    func scopeChanged(_ token: String) { caches.scopeChanged(token) }

    /// The work message for an item; nil when the item no longer applies.
    func work(for item: WorkItem, taskID: String) throws -> Work? {
        switch item.kind {
        case .fetch(let id):
            guard let r = try store.resource(id: id), let headers = try requestHeaders(item.token) else { return nil }
            return .fetch(fetchWork(r, headers: headers))
        case .verify(let id):
            guard let r = try store.resource(id: id) else { return nil }
            if let work = SubtitlesComponent.conversionWork(r) { return .verify(work) }
            if r.kind == .singleFile, r.sha256 == nil {
                guard let title = try store.title(r.token) else { return nil }
                return SingleFileComponent.writeWork(r, title: title).map { .verify($0) }
            }
            guard let bytes = r.bytes else { return nil }
            var work = VerifyWork(
                path: "\(r.token)/\(r.localPath)", expectedBytes: bytes, sha256: r.sha256,
                container: r.container, encrypted: r.encrypted)
            work.decryption = decryption(for: r)
            if let limit = components.first(VerificationComponent.self)?.readLimit(r.token) {
                work.bytesPerSecond = limit
            }
            return .verify(work)
        default:
            break
        }
        guard let title = try store.title(item.token) else { return nil }
        switch item.kind {
        case .resolve where title.peer != nil && !title.planned:
            return try peer?.resolveWork(title)
        case .resolve:
            var work = ResolveWork(url: title.url, headers: title.headers, selection: title.selection)
            if title.record != nil { work.live = true }
            work.range = title.clipRange
            return .resolve(work)
        case .reload(let position):
            guard title.isRecording,
                let r = try store.renditions(token: item.token).first(where: { $0.position == position })
            else { return nil }
            return .reload(ReloadWork(url: r.sourceURL, headers: title.headers))
        case .license:
            return try licenseWork(title, taskID: taskID)
        case .fetch, .verify:
            return nil
        }
    }

    /// A license task: the title's keys and terms, or (a recording that met new keys) just those keys.
    private func licenseWork(_ title: TitleRecord, taskID: String) throws -> Work? {
        let keys = try store.keys(token: title.token)
        if title.record != nil, title.licenseTerms != nil,
            components.first(LicensingComponent.self)?.isRenewing(title.token) != true
        {
            // A recording met new keys: fetch just those; the terms granted stay.
            return components.first(RecordingComponent.self)?.keysOnlyWork(title, keys: keys, taskID: taskID).map {
                .license(Self.clearKeyServer($0, of: title))
            }
        }
        var work = LicenseWork(
            url: title.url, headers: title.headers, keyURIs: keys.map(\.uri), terms: title.requestedTerms,
            licenseURL: title.licenseURL, renewal: title.licenseTerms != nil)
        work.keys = keys.map { PlannedKey(uri: $0.uri, method: $0.method, keyFormat: $0.keyFormat, keyID: $0.keyID) }
        return .license(Self.clearKeyServer(work, of: title))
    }

    /// DASH Clear Key: `--license-url` names the Clear Key server (over the MPD's Laurl) for every key of the
    /// title, those of the first license and those a recording meets later alike; the terms are granted as
    /// requested.
    static func clearKeyServer(_ work: LicenseWork, of title: TitleRecord) -> LicenseWork {
        guard title.manifestName != nil, let override = title.licenseURL,
            work.keys?.contains(where: { $0.keyFormat == "org.w3.clearkey" }) == true
        else { return work }
        var work = work
        work.keys = work.keys?.map {
            var k = $0
            k.uri = override
            return k
        }
        work.keyURIs = work.keys?.map(\.uri) ?? []
        work.licenseURL = nil
        return work
    }

    /// The work of a fetch batch lease: one ``FetchWork`` per resource still known, in the lease's order, with the
    /// ids sent (to read the results by). Nil when none is left.
    func batch(_ lease: Lease) throws -> (work: Work, ids: [Int64])? {
        guard let headers = try requestHeaders(lease.item.token) else { return nil }
        var wanted: [Int64] = []
        for case .fetch(let id) in lease.items.map(\.kind) { wanted.append(id) }
        let records = try store.resources(ids: wanted)
        let known = wanted.compactMap { id in records[id].map { (id: id, record: $0) } }
        guard !known.isEmpty else { return nil }
        return (.fetchBatch(FetchBatch(items: known.map { fetchWork($0.record, headers: headers) })), known.map(\.id))
    }

    /// What a worker needs to fetch one resource.
    func fetchWork(_ r: ResourceRecord, headers: [Header]) -> FetchWork {
        var work = FetchWork(
            url: r.url, headers: headers, rangeOffset: r.rangeOffset, rangeLength: r.rangeLength,
            path: "\(r.token)/\(r.localPath)", container: r.encrypted ? nil : r.container)
        if let decryption = decryption(for: r) {
            work.decryption = decryption
            work.container = r.container
        }
        work.alternates = r.alternates
        if let id = r.id { work.fresh = isFresh(r.token, id) }
        if let peer = peer?.fetch(r) {
            // The peer's stored file, whole: its byte range (if any) was the origin's.
            work.url = peer.url
            work.headers = peer.headers
            work.rangeOffset = nil
            work.rangeLength = nil
            work.alternates = nil
        }
        return work
    }

    /// A title's request headers, decoded once (they never change after submit); nil if the title is gone.
    func requestHeaders(_ token: String) throws -> [Header]? {
        try caches.headers(token) {
            try store.titleHeaders(token).map { (try? JSONDecoder().decode([Header].self, from: Data($0.utf8))) ?? [] }
        }
    }

    /// What a title's fetches may do (hosts, addresses, where its headers go): sent with each of its tasks and
    /// with its streaming plays. Cached per title; ``rememberReach(_:_:_:)`` updates it.
    func fetchScope(_ token: String) throws -> FetchScope? {
        try caches.scope(token) {
            try store.title(token).map {
                // Filled from a peer: the peer's URL is the source (its address class decides the reach, its host
                // gets the peer secret), and the origin's host keeps the submitted headers.
                var headerHosts = $0.headerHosts ?? []
                if $0.peer != nil, let origin = URL(string: $0.url)?.host?.lowercased() { headerHosts.append(origin) }
                var scope = FetchScope(
                    allowedHosts: options.allowedHosts, network: options.network, reach: $0.reach,
                    source: $0.peer?.manifestURL ?? $0.url, headerHosts: headerHosts)
                // Another box's answers are held to a pace (its drip cut, the worker's slot freed).
                if $0.peer != nil { scope.sourceLimits = options.answerPace }
                return scope
            }
        }
    }

    /// Stores the reach a title's first resolve found (its later fetches keep it, wherever its source moves).
    func rememberReach(_ token: String, _ title: TitleRecord, _ reach: AddressClass?) throws {
        guard let reach, title.reach == nil else { return }
        var updated = title
        // The source the resolve reached: a peer's gateway for a title filled from one (as in ``fetchScope(_:)``).
        let source = title.peer?.manifestURL ?? title.url
        updated.reach = options.network.acceptedReach(reported: reach, source: source)
        try store.update(updated)
        caches.scopeChanged(token)
    }

    /// The key and IV a worker needs to check `r`'s container inside its ciphertext, or nil: the file is clear,
    /// its cipher was not kept (planned by an older version), or its key is not held (a device-only title, a
    /// license not acquired yet) — it is then checked by length and hash only, as before.
    func decryption(for r: ResourceRecord) -> SegmentDecryption? {
        guard r.encrypted, let cipher = r.cipher, let iv = KeyEncoding.hex(cipher.iv), iv.count == 16 else {
            return nil
        }
        guard let record = try? store.keys(token: r.token).first(where: { $0.position == cipher.key }),
            let wrapped = record.wrapped,
            let key = try? vault.unwrap(wrapped, token: r.token, index: cipher.key)
        else { return nil }
        return SegmentDecryption(key: Data(key), iv: Data(iv))
    }
}
