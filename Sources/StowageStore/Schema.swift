import GRDB

/// Versioned migrations, from the first schema on. Never edit a shipped migration: add a new one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.create(table: "title") { t in
                t.primaryKey("token", .text)
                t.column("url", .text).notNull()
                t.column("name", .text)
                t.column("state", .text).notNull().indexed()
                t.column("priority", .integer).notNull().defaults(to: 0)
                t.column("selection", .text).notNull()
                t.column("headers", .text).notNull()
                t.column("requestedAt", .double).notNull()
                t.column("startedAt", .double)
                t.column("endedAt", .double)
                t.column("errorCode", .text)
                t.column("errorMessage", .text)
                t.column("bytesEstimate", .integer)
                t.column("masterPlaylist", .text)
                t.column("localPlaylist", .text)
                t.column("licenseKind", .text)
                t.column("licenseRequestedAt", .double)
                t.column("licenseExpiresAt", .double)
                t.column("planned", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "rendition") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("token", .text).notNull().references("title", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("sourceURL", .text).notNull()
                t.column("localPath", .text).notNull()
                t.column("playlist", .text).notNull()
                t.column("language", .text)
                t.uniqueKey(["token", "position"])
            }
            try db.create(table: "resource") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("token", .text).notNull().references("title", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("rendition", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("url", .text).notNull()
                t.column("rangeOffset", .integer)
                t.column("rangeLength", .integer)
                t.column("localPath", .text).notNull()
                t.column("container", .text).notNull()
                t.column("encrypted", .boolean).notNull()
                t.column("duration", .double).notNull()
                t.column("state", .text).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("bytes", .integer)
                t.column("sha256", .text)
                t.column("contentLength", .integer)
                t.column("lastError", .text)
                t.uniqueKey(["token", "position"])
            }
            try db.create(index: "resource_token_state", on: "resource", columns: ["token", "state"])
            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("token", .text).notNull().indexed()
                t.column("at", .double).notNull()
                t.column("kind", .text).notNull()
                t.column("detail", .text).notNull()
            }
        }
        migrator.registerMigration("v2-keys-and-plays") { db in
            try db.create(table: "contentKey") { t in
                t.column("token", .text).notNull().references("title", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("uri", .text).notNull()
                t.column("method", .text).notNull()
                /// AES-GCM wrapped key; NULL until the license worker acquired it.
                t.column("wrapped", .blob)
                t.primaryKey(["token", "position"])
            }
            try db.alter(table: "title") { t in
                t.add(column: "playCount", .integer).notNull().defaults(to: 0)
                t.add(column: "firstPlayedAt", .double)
            }
        }
        migrator.registerMigration("v3-license-terms") { db in
            try db.alter(table: "title") { t in
                t.add(column: "licenseTerms", .text)
                t.add(column: "requestedTerms", .text)
                t.add(column: "licenseURL", .text)
                t.add(column: "licenseError", .text)
                t.add(column: "licenseEpoch", .integer).notNull().defaults(to: 0)
                t.add(column: "playedSeconds", .double).notNull().defaults(to: 0)
                t.add(column: "preloadOnly", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v4-key-systems") { db in
            try db.alter(table: "contentKey") { t in
                t.add(column: "keyFormat", .text)
                t.add(column: "keyID", .text)
            }
        }
        migrator.registerMigration("v5-library") { db in
            try db.alter(table: "title") { t in t.add(column: "posterURL", .text) }
            try db.create(table: "bookmark") { t in
                t.column("token", .text).notNull().references("title", onDelete: .cascade)
                t.column("kind", .text).notNull()  // user | index
                t.column("position", .double).notNull()  // seconds from the start
                t.column("label", .text).notNull()
                t.primaryKey(["token", "kind", "position"])
            }
        }
        migrator.registerMigration("v6-title-url-index") { db in
            // `submit` looks a URL up among live titles; without it each submit scans every title.
            try db.create(index: "title_url", on: "title", columns: ["url"])
        }
        migrator.registerMigration("v7-waiting") { db in
            // Why a suspended title waits, since when (wall clock, shown), and the host whose return it
            // waits for (network suspension, or a license renewal that could not reach its server).
            try db.alter(table: "title") { t in
                t.add(column: "suspendedReason", .text)
                t.add(column: "suspendedAt", .double)
                t.add(column: "waitingHost", .text)
            }
        }
        migrator.registerMigration("v8-license-terms-only") { db in
            // `licenseKind`, `licenseRequestedAt` and `licenseExpiresAt` repeat the `licenseTerms` JSON they
            // were written with. Titles licensed before v3 have only the columns: their terms are kept as JSON
            // (the shape of `LicenseTerms`) before the columns go. No index uses them.
            try db.execute(
                sql: """
                    UPDATE title SET licenseTerms = json_object(
                        'kind', CASE WHEN licenseKind IN ('purchase', 'rental') THEN licenseKind ELSE 'none' END,
                        'requestedAt', COALESCE(licenseRequestedAt, requestedAt),
                        'expiresAt', licenseExpiresAt,
                        'forceExpired', json('false'),
                        'renewalSuggested', json('false'))
                    WHERE licenseTerms IS NULL AND licenseKind IS NOT NULL
                    """)
            try db.alter(table: "title") { t in
                t.drop(column: "licenseKind")
                t.drop(column: "licenseRequestedAt")
                t.drop(column: "licenseExpiresAt")
            }
        }
        migrator.registerMigration("v9-recordings") { db in
            try db.alter(table: "title") { t in
                t.add(column: "record", .text)
                t.add(column: "recordingEndedAt", .double)
            }
            try db.alter(table: "rendition") { t in t.add(column: "live", .text) }
        }
        migrator.registerMigration("v10-devices") { db in
            try db.alter(table: "title") { t in t.add(column: "externalID", .text) }
            // SQLite lets several NULLs through a unique index: only ids given with `submit --id` are unique.
            try db.create(index: "title_externalID", on: "title", columns: ["externalID"], unique: true)
            try db.create(table: "device") { t in
                t.primaryKey("name", .text)
                t.column("secretHash", .blob).notNull()  // SHA-256 of the secret (its URL key: DeviceURLKeys)
                t.column("createdAt", .double).notNull()
                t.column("revokedAt", .double)
            }
            try db.create(table: "devicePlay") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("device", .text).notNull().indexed()
                t.column("token", .text).notNull()
                t.column("at", .double).notNull()
            }
        }
        migrator.registerMigration("v11-title-order-index") { db in
            // `list` pages through titles in request order: an index keeps each page a range scan.
            try db.create(index: "title_requested", on: "title", columns: ["requestedAt", "token"])
        }
        migrator.registerMigration("v12-dash") { db in
            try db.alter(table: "title") { t in
                t.add(column: "manifestName", .text)
                t.add(column: "protection", .text)
                t.add(column: "allowDeviceDRM", .boolean).notNull().defaults(to: false)
            }
            try db.alter(table: "resource") { t in t.add(column: "alternates", .text) }
        }
        migrator.registerMigration("v13-network-reach") { db in
            try db.alter(table: "title") { t in
                t.add(column: "reach", .text)  // AddressClass of the source; NULL: not resolved since
                t.add(column: "headerHosts", .text)  // JSON array (GRDB's Codable column)
            }
        }
        migrator.registerMigration("v14-operator-keys") { db in
            // `submit --key`: wrapped keys by key ID (a JSON object), until the plan's keys take them.
            try db.alter(table: "title") { t in t.add(column: "operatorKeys", .text) }
        }
        migrator.registerMigration("v15-segment-cipher") { db in
            // A whole-segment ciphertext's key position and IV, so its container is checked decrypted; NULL for
            // files planned before (checked by length and hash only, as then).
            try db.alter(table: "resource") { t in
                t.add(column: "cipherKey", .integer)
                t.add(column: "cipherIV", .text)
            }
        }
        migrator.registerMigration("v16-bundle-transfer") { db in
            // `stowctl export --move`: the box the license went to; NULL for every title not moved away.
            try db.alter(table: "title") { t in t.add(column: "transferredTo", .text) }
        }
        migrator.registerMigration("v17-peer-fill") { db in
            // `submit --from-peer`: the peer box (JSON PeerSource) a title fills from, and per file the SHA-256 of
            // the peer's copy while it is taken from there (NULL: from the origin).
            try db.alter(table: "title") { t in t.add(column: "peer", .text) }
            try db.alter(table: "resource") { t in t.add(column: "peerSHA256", .text) }
            // A peer box's credential (`devices add --peer`): manifests and files, no plays.
            try db.alter(table: "device") { t in t.add(column: "peer", .boolean).notNull().defaults(to: false) }
        }
        migrator.registerMigration("v18-fill-windows") { db in
            // `submit --window` (a FillSchedule's text; NULL: the box's --fill-window) and `submit --now` (fetched
            // whatever the windows say).
            try db.alter(table: "title") { t in
                t.add(column: "fillWindow", .text)
                t.add(column: "fetchNow", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v19-quota") { db in
            // `--quota`: when a device last played each title (NULL: never) and whether the operator pinned it.
            try db.alter(table: "title") { t in
                t.add(column: "lastPlayedAt", .double)
                t.add(column: "pinned", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v20-notify-outbox") { db in
            // `--notify`: events waiting for each receiver, written in the transaction of what they report and
            // deleted once the receiver took them (docs/notifications.md). `subject` orders them: a title's token,
            // or "" for the box's own events (the catalogue).
            try db.create(table: "notifyOutbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("eventID", .text).notNull()
                t.column("receiver", .text).notNull()
                t.column("subject", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("body", .blob).notNull()
                t.column("createdAt", .double).notNull()
            }
            try db.create(index: "notifyOutbox_receiver", on: "notifyOutbox", columns: ["receiver", "id"])
        }
        migrator.registerMigration("v21-bundle-imports") { db in
            // `stowctl import` of a `--move` bundle: its export id, kept after the title is deleted, so the one
            // license a move carries is taken in once per box (docs/bundles.md).
            try db.create(table: "bundleImport") { t in
                t.primaryKey("exportID", .text)
                t.column("token", .text).notNull()
                t.column("fromBox", .text).notNull()
                t.column("importedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v22-device-last-seen") { db in
            // The console's Devices page: when the scheduler last checked a good credential of each device.
            try db.alter(table: "device") { t in t.add(column: "lastSeenAt", .double) }
        }
        migrator.registerMigration("v23-clip-range") { db in
            // `submit --range`: the span asked for and the span the plan keeps (JSON ClipRange; NULL: whole title).
            try db.alter(table: "title") { t in
                t.add(column: "clipRange", .text)
                t.add(column: "clipStored", .text)
            }
        }
        migrator.registerMigration("v24-pathways") { db in
            // Several places for the same media (HLS pathways, DASH BaseURLs): their names and origins (JSON
            // [PlannedPathway]) and the one that served the latest file.
            try db.alter(table: "title") { t in
                t.add(column: "pathways", .text)
                t.add(column: "pathway", .text)
            }
        }
        migrator.registerMigration("v25-single-file") { db in
            // `submit --file mp4|mkv`: the single file the box writes when the title completes (NULL: none).
            try db.alter(table: "title") { t in t.add(column: "singleFile", .text) }
        }
        migrator.registerMigration("v26-leader") { db in
            // Schedulers sharing a store: the leader row, its term and lease (Store+Leader.swift).
            for sql in LeaderSQL(.sqlite).create { try db.execute(sql: sql) }
        }
        migrator.registerMigration("v27-play-receipts") { db in
            // Play reports applied once across a takeover: their ids (Store+PlayReceipts.swift).
            try Store.createPlayReceipts(db)
        }
        return migrator
    }
}
