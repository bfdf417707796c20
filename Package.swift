// swift-tools-version: 6.1
// Mien: reads faces in images, videos and camera streams, the way Affectiva's Affdex SDK did.
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode plus the upcoming features the style guide
/// asks for, so that no C type or existential sneaks into the public API unannounced.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Mien",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Mien", targets: ["Mien"]),
        .library(name: "MienStudies", targets: ["MienStudies"]),
        .library(name: "MienTesting", targets: ["MienTesting"]),
        .library(name: "MienService", targets: ["MienService"]),
        // The command is `mien`; its target is MienCLI so that no two folders under Sources differ only in case
        // (Sources/Mien and Sources/mien are one folder on macOS's default file system).
        .executable(name: "mien", targets: ["MienCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // Persistent hash tries for a study's sessions (already in the graph through SwiftNIO and Hummingbird).
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // `make docs`: the DocC catalog of the Mien library (Sources/Mien/Mien.docc), built as static HTML.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: - The only C++: Debian's OpenCV 4.6 behind a plain C API
        // mien-opencv4.pc (written by `make deps` from opencv4.pc) links the 4 modules the bridge uses instead of
        // all 55: each linked module is loaded at start (scripts/install-opencv-pc.sh has the measurements).
        .systemLibrary(
            name: "COpenCV",
            pkgConfig: "mien-opencv4",
            providers: [.apt(["libopencv-dev"])]
        ),
        .target(
            name: "CMienBridge",
            dependencies: ["COpenCV"],
            cxxSettings: [.define("CV_IGNORE_DEPRECATED_WARNINGS")],
            // Video files are decoded with FFmpeg's libraries directly (FileDecoder.hpp says why); Debian's
            // headers live on the default multiarch include path, so plain library names suffice.
            // libjpeg-turbo too: plain JPEGs are decoded straight into BGR (Jpeg.cpp says why).
            linkerSettings: [
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"),
                .linkedLibrary("avutil"), .linkedLibrary("jpeg"),
            ]
        ),

        // MARK: - Inference: OpenVINO's C API (installed by `make deps` from the pinned PyPI wheel)
        .systemLibrary(name: "COpenVINO", pkgConfig: "openvino"),

        // MARK: - Pure Swift vocabulary: value types, stage protocols, geometry (no C)
        .target(
            name: "MienCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: swiftSettings
        ),

        // MARK: - Statistics for studies: t, Welch, permutation tests, ISC and bootstrap (pure Swift, no dependency)
        .target(name: "MienStatistics", swiftSettings: swiftSettings),

        // MARK: - OpenCV- and OpenVINO-backed stages and frame sources (the only importer of both)
        .target(
            name: "MienVision",
            dependencies: [
                "MienCore", "CMienBridge", "COpenVINO",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - The facade users import
        .target(
            name: "Mien",
            dependencies: [
                "MienCore", "MienVision",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Studies: design, fieldwork decisions, aggregation and reports over the faces' results
        // (no HTTP, NIO or SQL: the service and the database stores build on it)
        .target(
            name: "MienStudies",
            dependencies: [
                "Mien", "MienCore", "MienVision", "MienStatistics",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - The service: `mien serve` (HTTP and WebSocket over the same Detector and writers)
        .target(
            name: "MienService",
            dependencies: [
                "Mien", "MienCore", "MienStudies",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ],
            resources: [
                .embedInCode("Resources/index.html"), .embedInCode("Resources/openapi.yaml"),
                .embedInCode("Resources/detector-result.schema.json"), .embedInCode("Resources/participant.html"),
                .embedInCode("Resources/dashboard.html"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Fakes and synthetic inputs for tests, benchmarks and demos
        .target(name: "MienTesting", dependencies: ["Mien", "MienCore", "MienStudies"], swiftSettings: swiftSettings),

        // MARK: - Command-line tools (thin layers over the library)
        .executableTarget(
            name: "MienCLI",
            dependencies: [
                "Mien", "MienCore", "MienStudies", "MienService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["BuildInfo"]
        ),
        // The commit `mien --version` names, written before each build (Plugins/BuildInfo says why).
        .plugin(name: "BuildInfo", capability: .buildTool()),
        // Developer tool: benchmarks, evaluation on ../shared/eval, synthetic clips (`make bench|eval|demo`).
        .executableTarget(
            name: "MienDev",
            dependencies: [
                "Mien", "MienCore", "MienStudies", "MienTesting", "MienStatistics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests mirror the targets
        .testTarget(
            name: "MienCoreTests",
            dependencies: ["MienCore", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "MienStatisticsTests", dependencies: ["MienStatistics"], swiftSettings: swiftSettings),
        .testTarget(name: "MienVisionTests", dependencies: ["Mien", "MienTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "MienTests", dependencies: ["Mien", "MienTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MienStudiesTests", dependencies: ["MienStudies", "MienStatistics", "MienTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MienCLITests", dependencies: ["MienCLI", "MienStudies", "MienTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MienServiceTests",
            dependencies: [
                "MienService", "MienStudies", "MienTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
