// swift-tools-version:6.0
// Stowage: offline HLS downloads as a multi-process pipeline over ZeroMQ.
//
// Layers, bottom to top:
//   CZeroMQ (system library) -> ZeroMQ (thin wrapper) -> StowageProtocol (frames, pure values)
//   -> domain libraries (HLS, Integrity, Store, Scheduling, Fetch, Runtime, SchedulerService, Origin)
//   -> thin executables.
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
    ],
    targets: [
        // MARK: message plane
        .systemLibrary(name: "CZeroMQ", path: "Sources/CZeroMQ"),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .target(name: "StowageProtocol", exclude: ["PROTOCOL.md"]),

        // MARK: domain libraries
        .target(name: "StowageHLS", dependencies: ["StowageProtocol"]),
        // MPEG-DASH: MPD parsing, segment addressing (templates, timelines, lists, sidx), selection, local MPDs.
        .target(name: "StowageDASH", dependencies: ["StowageProtocol"]),
        // Linux calls Swift's Glibc module does not declare (syncfs).
        .target(name: "CSystemShims"),
        .target(name: "StowageIntegrity", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "StowageStore",
            dependencies: [
                "StowageProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .target(
            name: "StowageSchedulerCore",
            dependencies: [
                "StowageProtocol",
                .product(name: "DequeModule", package: "swift-collections"),
            ]),
        .target(
            name: "StowageLicensing",
            dependencies: ["StowageProtocol", .product(name: "Crypto", package: "swift-crypto")]),
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
        .target(
            name: "StowageRuntime",
            dependencies: [
                "ZeroMQ", "StowageProtocol",
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
                "StowageLicensing", "StowageHLS", "CSystemShims",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "StowageOrigin",
            dependencies: [
                "StowageProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // Serving one title's offline copy over HTTP (ranges, content types, playlist rewriting, play metering):
        // `stowctl play` and `stowage-gateway`.
        .target(
            name: "StowagePlayback",
            dependencies: [
                "StowageProtocol", "StowageFetch",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The LAN gateway: auth, playback sessions, routes, library page.
        .target(
            name: "StowageGateway",
            dependencies: [
                "StowagePlayback", "StowageProtocol", "StowageRuntime",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: executables (argument parsing and wiring only)
        .executableTarget(
            name: "stowage-scheduler",
            dependencies: [
                "StowageSchedulerService", "StowageRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "stowage-license-worker",
            dependencies: [
                "StowageRuntime", "StowageProtocol", "StowageFetch", "StowageLicenseAcquisition", "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowage-download-worker",
            dependencies: [
                "CSystemShims",
                "StowageRuntime", "StowageProtocol", "StowageFetch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowage-integrity-worker",
            dependencies: [
                "CSystemShims",
                "StowageRuntime", "StowageProtocol", "StowageIntegrity",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowctl",
            dependencies: [
                "StowageRuntime", "StowageProtocol", "ZeroMQ", "StowageFetch", "StowageHLS", "StowageDASH",
                "StowageOrigin",
                "StowagePlayback",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "stowage-origin",
            dependencies: [
                "StowageOrigin",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "stowage-gateway",
            dependencies: [
                "CSystemShims",
                "StowageGateway", "StowageRuntime",
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

        // MARK: tests
        // What test targets share: the process harness, origins, the gateway, origin snapshots, a seeded generator.
        .target(name: "StowageTestSupport", dependencies: ["StowageProtocol"], path: "Tests/StowageTestSupport"),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "StowageProtocolTests", dependencies: ["StowageProtocol", "StowageTestSupport"]),
        .testTarget(name: "StowageHLSTests", dependencies: ["StowageHLS", "StowageTestSupport"]),
        .testTarget(name: "StowageDASHTests", dependencies: ["StowageDASH", "StowageProtocol"]),
        .testTarget(name: "StowageIntegrityTests", dependencies: ["StowageIntegrity"]),
        .testTarget(name: "StowageStoreTests", dependencies: ["StowageStore", "StowageProtocol"]),
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
        .testTarget(name: "StowageLicensingTests", dependencies: ["StowageLicensing", "StowageProtocol"]),
        .testTarget(
            name: "StowageOriginTests",
            dependencies: [
                "StowageOrigin", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(name: "StowageRuntimeTests", dependencies: ["StowageRuntime", "ZeroMQ"]),
        .testTarget(
            name: "StowageGatewayTests",
            dependencies: [
                "StowageGateway", "StowagePlayback", "StowageProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "ZeroMQ", "StowageProtocol", "StowageTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
    ]
)
