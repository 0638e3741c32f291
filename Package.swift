// swift-tools-version:6.0
// Stowage: offline HLS downloads as a multi-process pipeline over ZeroMQ.
//
// Layers, bottom to top:
//   CZeroMQ (system library) -> ZeroMQ (thin wrapper) -> StowageProtocol (frames, pure values)
//   -> domain libraries (HLS, Integrity, Store, Scheduling, Fetch, Runtime, SchedulerService, Origin)
//   -> StowageProcess (option groups, logging, metrics endpoint, service group) -> thin executables.
// Each target lists exactly what its sources import.
import PackageDescription

let package = Package(
    name: "Stowage",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "stowage-scheduler", targets: ["stowage-scheduler"]),
        .executable(name: "stowage-license-worker", targets: ["stowage-license-worker"]),
        .executable(name: "stowage-download-worker", targets: ["stowage-download-worker"]),
        .executable(name: "stowage-integrity-worker", targets: ["stowage-integrity-worker"]),
        .executable(name: "stowctl", targets: ["stowctl"]),
        .executable(name: "stowage-origin", targets: ["stowage-origin"]),
        .executable(name: "stowage-gateway", targets: ["stowage-gateway"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
    ],
    targets: [
        // MARK: message plane
        .systemLibrary(name: "CZeroMQ", path: "Sources/CZeroMQ"),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .target(name: "StowageProtocol", exclude: ["PROTOCOL.md"]),
        // QR codes of pairing links: Debian's libqrencode for the symbol; the terminal text and the PNG are ours.
        .systemLibrary(name: "CQRencode", path: "Sources/CQRencode"),
        .target(name: "StowageQR", dependencies: ["CQRencode"]),

        // MARK: domain libraries
        .target(name: "StowageHLS", dependencies: ["StowageProtocol"]),
        // MPEG-DASH: MPD parsing, segment addressing (templates, timelines, lists, sidx), selection, local MPDs.
        .target(name: "StowageDASH", dependencies: ["StowageProtocol"]),
        // Subtitles a person can read: every subtitle track of an offline copy (segmented WebVTT, wvtt/stpp in
        // fMP4, TTML and WebVTT sidecars) as cues, and those cues as WebVTT and SubRip. Pure file reads.
        .target(name: "StowageSubtitles", dependencies: ["StowageProtocol", "StowageHLS", "StowageDASH"]),
        // Linux calls Swift's Glibc module does not declare (syncfs).
        .target(name: "CSystemShims"),
        .target(
            name: "StowageIntegrity",
            dependencies: [
                "StowageProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .target(
            name: "StowageStore",
            dependencies: [
                "StowageProtocol", "StowageLicensing",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The store on PostgreSQL (`--store postgres://…`); GRDB stays the SQLite driver and record coder.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // `stowctl store copy`: the digest each copied table is checked by.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The catalogue: a box's desired state, its Ed25519 signature, and the pure convergence decision.
        .target(
            name: "StowageCatalog",
            dependencies: ["StowageProtocol", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "StowageSchedulerCore",
            dependencies: [
                "StowageProtocol", "StowageCatalog",
                .product(name: "DequeModule", package: "swift-collections"),
            ]),
        .target(
            name: "StowageLicensing",
            dependencies: ["StowageProtocol", .product(name: "Crypto", package: "swift-crypto")]),
        // Box-to-box bundles: the signed manifest, this box's Ed25519/X25519 identity, content keys wrapped for
        // another box, the import check and streaming copy. No sockets, no store: the scheduler and stowctl use it.
        .target(
            name: "StowageBundle",
            dependencies: [
                "StowageProtocol", "StowageLicensing", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "StowageFetch",
            dependencies: [
                "StowageProtocol", "StowageHLS", "StowageDASH", "StowageIntegrity", "CSystemShims",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // License acquisition over HTTP (JSON license API, W3C Clear Key, HLS key delivery) for the license worker.
        .target(
            name: "StowageLicenseAcquisition",
            dependencies: [
                "StowageFetch", "StowageProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // The ZeroMQ side of every process: the worker loop, the scheduler client, CURVE keys and ZAP, the poll
        // loop as a service. No command line here (see StowageProcess).
        .target(
            name: "StowageRuntime",
            dependencies: [
                "ZeroMQ", "StowageProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // How a process is wired: its option groups, logging, the Prometheus endpoint and the service group that
        // turns SIGTERM into a graceful stop. Used by the executables only.
        .target(
            name: "StowageProcess",
            dependencies: [
                "StowageRuntime", "StowageProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "StowageSchedulerService",
            dependencies: [
                "ZeroMQ", "StowageProtocol", "StowageStore", "StowageSchedulerCore", "StowageRuntime",
                "StowageLicensing", "StowageHLS", "StowageIntegrity", "CSystemShims", "StowageCatalog",
                "StowageBundle", "StowageDASH", "StowageSubtitles",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "StowageOrigin",
            dependencies: [
                "StowageProtocol", "StowageDASH",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // Serving one title's offline copy over HTTP (ranges, content types, playlist rewriting, play metering):
        // `stowctl play` and `stowage-gateway`. A title still downloading fetches its missing files through a
        // PlaySourceFetcher the process passes in, so playback links no HTTP client.
        .target(
            name: "StowagePlayback",
            dependencies: [
                "StowageProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // An offline copy read as renditions (its local master) and written as one file (`stowctl remux`, the box's
        // `title.mp4`), its subtitles from StowageSubtitles: the gateway, stowctl and the integrity worker share it.
        .target(
            name: "StowageOfflineCopy",
            dependencies: ["StowageProtocol", "StowageHLS", "StowageSubtitles"]),
        // The LAN gateway: auth, playback sessions, routes, library page.
        .target(
            name: "StowageGateway",
            dependencies: [
                "StowageOfflineCopy", "StowagePlayback", "StowageProtocol", "StowageRuntime", "StowageQR",
                "StowageSchedulerCore",
                // The offline master's renditions, for the library's facts and the play page.
                "StowageHLS",
                // subtitles/<lang>.vtt and .srt when the written files are not there.
                "StowageSubtitles",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),

        // MARK: executables (argument parsing and wiring only)
        .executableTarget(
            name: "stowage-scheduler",
            dependencies: [
                "StowageSchedulerService", "StowageSchedulerCore", "StowageProtocol", "StowageRuntime",
                "StowageProcess", "StowageCatalog", "StowageLicensing", "StowageStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "stowage-license-worker",
            dependencies: [
                "StowageRuntime", "StowageProcess", "StowageProtocol", "StowageFetch", "StowageLicenseAcquisition",
                "CSystemShims",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowage-download-worker",
            dependencies: [
                "CSystemShims",
                "StowageRuntime", "StowageProcess", "StowageProtocol", "StowageFetch",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowage-integrity-worker",
            dependencies: [
                "CSystemShims",
                "StowageRuntime", "StowageProcess", "StowageProtocol", "StowageIntegrity", "StowageSubtitles",
                "StowageOfflineCopy",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowctl",
            dependencies: [
                "StowageRuntime", "StowageProcess", "StowageProtocol", "ZeroMQ", "StowageFetch", "StowageHLS",
                "StowageDASH", "StowagePlayback", "StowageBundle", "StowageQR", "StowageOfflineCopy", "StowageStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowage-origin",
            dependencies: [
                "StowageOrigin", "StowageProcess", "StowageProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowage-gateway",
            dependencies: [
                "CSystemShims",
                "StowageGateway", "StowageRuntime", "StowageProcess", "StowageFetch", "StowageProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: fuzz targets (libFuzzer with Benchmarks/fuzz.sh; plain builds replay inputs)
        .target(name: "FuzzReplay", path: "Tests/Fuzz/FuzzReplay"),
        .executableTarget(
            name: "stowage-fuzz-playlist", dependencies: ["StowageHLS", "StowageProtocol", "FuzzReplay"],
            path: "Tests/Fuzz/FuzzPlaylist"),
        .executableTarget(
            name: "stowage-fuzz-frames", dependencies: ["StowageProtocol", "FuzzReplay"], path: "Tests/Fuzz/FuzzFrames"),
        .executableTarget(
            name: "stowage-fuzz-mpd", dependencies: ["StowageDASH", "StowageProtocol", "FuzzReplay"],
            path: "Tests/Fuzz/FuzzMPD"),
        .executableTarget(
            name: "stowage-fuzz-documents",
            dependencies: ["StowageBundle", "StowageCatalog", "StowageLicensing", "StowageProtocol", "FuzzReplay"],
            path: "Tests/Fuzz/FuzzDocuments"),

        // MARK: tests
        // What test targets share: the process harness, origins, the gateway, origin snapshots, a seeded generator.
        .target(name: "StowageTestSupport", dependencies: ["StowageProtocol"], path: "Tests/StowageTestSupport"),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "StowageQRTests", dependencies: ["StowageQR"]),
        .testTarget(name: "StowageProtocolTests", dependencies: ["StowageProtocol", "StowageTestSupport"]),
        .testTarget(name: "StowageHLSTests", dependencies: ["StowageHLS", "StowageProtocol", "StowageTestSupport"]),
        .testTarget(name: "StowageDASHTests", dependencies: ["StowageDASH", "StowageProtocol"]),
        // Real bytes from Shaka Packager and ffmpeg in Fixtures/ (read by path; see Fixtures/README.md).
        .testTarget(name: "StowageSubtitlesTests", dependencies: ["StowageSubtitles"], exclude: ["Fixtures"]),
        .testTarget(
            name: "StowageIntegrityTests",
            dependencies: [
                "StowageIntegrity", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "StowageStoreTests",
            dependencies: [
                "StowageStore", "StowageProtocol", "StowageLicensing", "StowageTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "StowageCatalogTests",
            dependencies: [
                "StowageCatalog", "StowageProtocol", "StowageSchedulerCore", "StowageSchedulerService",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(name: "StowageSchedulerCoreTests", dependencies: ["StowageSchedulerCore", "StowageProtocol"]),
        .testTarget(
            name: "StowageFetchTests",
            dependencies: [
                "StowageFetch", "StowageProtocol", "CSystemShims", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The scheduler service driven in-process: an in-memory store, a manual clock, frames in and out.
        .testTarget(
            name: "StowageSchedulerServiceTests",
            dependencies: [
                "StowageSchedulerService", "StowageCatalog", .product(name: "Crypto", package: "swift-crypto"),
                "StowageSchedulerCore", "StowageStore", "StowageProtocol", "StowageRuntime", "StowageTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "StowageLicensingTests",
            dependencies: ["StowageLicensing", "StowageProtocol", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "StowageBundleTests",
            dependencies: [
                "StowageBundle", "StowageProtocol", "StowageLicensing",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "StowageOriginTests",
            dependencies: [
                "StowageOrigin", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "StowageRuntimeTests",
            dependencies: [
                "StowageRuntime", "StowageProtocol", "ZeroMQ", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "StowageProcessTests",
            dependencies: ["StowageProcess", "StowageProtocol", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "StowageGatewayTests",
            dependencies: [
                "StowageGateway", "StowagePlayback", "StowageProtocol", "StowageOfflineCopy",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "ZeroMQ", "StowageProtocol", "StowageCatalog", "StowageTestSupport", "StowageQR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
    ]
)
