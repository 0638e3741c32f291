import Foundation

// A plan's resources travel packed (``PackedWriter``) as `packedResources`: a title of 10,000 segments is one
// string instead of 10,000 JSON objects. A plan with a JSON `resources` list is still read.

extension ResolvedPlan {
    private enum PackedKeys: String, CodingKey {
        case masterPlaylist, renditions, resources, packedResources, bytesEstimate, keys, bookmarks, manifestName
        case protection, reach, packedCiphers, packedPeerHashes, peer, clip, pathways
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: PackedKeys.self)
        var resources: [PlannedResource]
        if c.contains(.packedResources) {
            resources = try c.decodePacked(forKey: .packedResources) { (r) throws(PackedError) in
                try PlannedResource(packed: &r)
            }
        } else {
            resources = try c.decode([PlannedResource].self, forKey: .resources)
        }
        // Segment ciphers travel beside the packed resources (a reader that predates them ignores the key).
        if c.contains(.packedCiphers) {
            let ciphers = try c.decodePacked(forKey: .packedCiphers) { (r) throws(PackedError) -> SegmentCipher? in
                let key = try r.optionalInt("cipher key")
                let iv = try r.optionalString("cipher IV")
                return key.flatMap { k in iv.map { SegmentCipher(key: Int(k), iv: $0) } }
            }
            guard ciphers.count == resources.count else {
                throw DecodingError.dataCorruptedError(
                    forKey: .packedCiphers, in: c,
                    debugDescription: "\(ciphers.count) segment ciphers for \(resources.count) resources")
            }
            for i in resources.indices { resources[i].cipher = ciphers[i] }
        }
        // A peer's hashes likewise (a plan from a peer box's manifest only).
        if c.contains(.packedPeerHashes) {
            let hashes = try c.decodePacked(forKey: .packedPeerHashes) { (r) throws(PackedError) in
                try r.optionalString("peer SHA-256")
            }
            guard hashes.count == resources.count else {
                throw DecodingError.dataCorruptedError(
                    forKey: .packedPeerHashes, in: c,
                    debugDescription: "\(hashes.count) peer hashes for \(resources.count) resources")
            }
            for i in resources.indices { resources[i].peerSHA256 = hashes[i] }
        }
        self.init(
            masterPlaylist: try c.decode(String.self, forKey: .masterPlaylist),
            renditions: try c.decode([PlannedRendition].self, forKey: .renditions), resources: resources,
            bytesEstimate: try c.decodeIfPresent(Int64.self, forKey: .bytesEstimate),
            keys: try c.decode([PlannedKey].self, forKey: .keys),
            bookmarks: try c.decode([Bookmark].self, forKey: .bookmarks),
            manifestName: try c.decodeIfPresent(String.self, forKey: .manifestName),
            protection: try c.decodeIfPresent(TitleProtection.self, forKey: .protection))
        reach = try c.decodeIfPresent(AddressClass.self, forKey: .reach)
        peer = try c.decodeIfPresent(PeerTitle.self, forKey: .peer)
        clip = try c.decodeIfPresent(ClipRange.self, forKey: .clip)
        pathways = try c.decodeIfPresent([PlannedPathway].self, forKey: .pathways)
        if let problem = numberProblem {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: c.codingPath, debugDescription: "\(problem)"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: PackedKeys.self)
        try c.encode(masterPlaylist, forKey: .masterPlaylist)
        try c.encode(renditions, forKey: .renditions)
        var w = PackedWriter(count: resources.count)
        for resource in resources { resource.pack(into: &w) }
        try c.encode(Data(w.bytes), forKey: .packedResources)
        if resources.contains(where: { $0.cipher != nil }) {
            var ciphers = PackedWriter(count: resources.count)
            for resource in resources {
                ciphers.optional(resource.cipher.map { Int64($0.key) })
                ciphers.optional(resource.cipher?.iv)
            }
            try c.encode(Data(ciphers.bytes), forKey: .packedCiphers)
        }
        if resources.contains(where: { $0.peerSHA256 != nil }) {
            var hashes = PackedWriter(count: resources.count)
            for resource in resources { hashes.optional(resource.peerSHA256) }
            try c.encode(Data(hashes.bytes), forKey: .packedPeerHashes)
        }
        try c.encodeIfPresent(bytesEstimate, forKey: .bytesEstimate)
        try c.encode(keys, forKey: .keys)
        try c.encode(bookmarks, forKey: .bookmarks)
        try c.encodeIfPresent(manifestName, forKey: .manifestName)
        try c.encodeIfPresent(protection, forKey: .protection)
        try c.encodeIfPresent(reach, forKey: .reach)
        try c.encodeIfPresent(peer, forKey: .peer)
        try c.encodeIfPresent(clip, forKey: .clip)
        try c.encodeIfPresent(pathways, forKey: .pathways)
    }
}

extension PlannedResource {
    /// kind, rendition, url, rangeOffset?, rangeLength?, localPath, container, encrypted, duration, alternates?
    func pack(into w: inout PackedWriter) {
        w.string(kind.rawValue)
        w.int(rendition)
        w.string(url)
        w.optional(rangeOffset)
        w.optional(rangeLength)
        w.string(localPath)
        w.string(container.rawValue)
        w.bool(encrypted)
        w.double(duration)
        w.optional(alternates)
    }

    init(packed r: inout PackedReader) throws(PackedError) {
        self.init(
            kind: try r.value(Kind.self, "kind"), rendition: try r.int("rendition"), url: try r.string("url"),
            rangeOffset: try r.optionalInt("rangeOffset"), rangeLength: try r.optionalInt("rangeLength"),
            localPath: try r.string("localPath"), container: try r.value(Container.self, "container"),
            encrypted: try r.bool("encrypted"), duration: try r.double("duration"))
        alternates = try r.optionalStrings("alternates")
    }
}
