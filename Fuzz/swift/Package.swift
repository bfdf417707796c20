// swift-tools-version:6.0
// The Swift fuzz target of what participants send (issue 94): `make fuzz-messages` builds it with
// `-sanitize=fuzzer` in .build/fuzz-swift and runs it (scripts/fuzz-messages.sh). A package of its own so that the
// main package's normal build has no executable that needs libFuzzer to link; it builds only the `MienStudies` product.
import PackageDescription

let package = Package(
    name: "MienFuzz",
    dependencies: [.package(name: "Mien", path: "../..")],
    targets: [
        .executableTarget(
            name: "MienFuzz",
            dependencies: [.product(name: "MienStudies", package: "Mien")],
            // libFuzzer brings `main`: the target is a library of functions, and SwiftPM's `MienFuzz_main` starts it.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ],
    swiftLanguageModes: [.v6]
)
