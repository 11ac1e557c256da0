// swift-tools-version:6.0
import PackageDescription

/// `make fuzz` sets CLIPKIT_FUZZ: the library is then instrumented for libFuzzer's coverage.
let fuzzing = Context.environment["CLIPKIT_FUZZ"] != nil

let package = Package(
    name: "clipkit",
    products: [
        .library(name: "ClipKit", targets: ["ClipKit"]),
        .executable(name: "clipkit", targets: ["clipkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Headers only for libavformat, libavcodec and libswscale: they are loaded when first
        // needed (Sources/ClipKit/Video/FFmpegLibraries.swift), not at start-up.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]
        ),
        .systemLibrary(
            name: "CGIF",
            providers: [.apt(["libgif-dev"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .target(
            name: "ClipKit",
            dependencies: ["CFFmpeg", "CGIF", "CPNG"],
            swiftSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
        ),
        .executableTarget(
            name: "clipkit",
            dependencies: ["ClipKit", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            // Lazy binding: FFmpeg's functions are bound at their first call, after they are loaded.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "lazy"])]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ClipKitTests", dependencies: ["ClipKit", "CGIF", "TestSupport"]),
        .testTarget(name: "clipkitTests", dependencies: ["ClipKit", "clipkit", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets, only for `make fuzz`: instrumented with -sanitize=fuzzer,address and linked with
// clang's fuzzer runtime without its main (the target's entry point starts libFuzzer's driver).
if fuzzing {
    let fuzzer = "/opt/swift/usr/lib/clang/21/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a"
    package.targets += [
        .target(name: "FuzzDriver", path: "Fuzz/FuzzDriver"),
        .executableTarget(name: "GIFDecoderFuzz", dependencies: ["ClipKit", "FuzzDriver"], path: "Fuzz/GIFDecoderFuzz",
                          swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
                          linkerSettings: [.unsafeFlags(["-sanitize=address", "-Xlinker", fuzzer, "-lstdc++"])]),
        .executableTarget(name: "ManifestFuzz", dependencies: ["ClipKit", "FuzzDriver"], path: "Fuzz/ManifestFuzz",
                          swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
                          linkerSettings: [.unsafeFlags(["-sanitize=address", "-Xlinker", fuzzer, "-lstdc++"])]),
        .executableTarget(name: "VideoDecodeFuzz", dependencies: ["ClipKit", "FuzzDriver"], path: "Fuzz/VideoDecodeFuzz",
                          swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
                          linkerSettings: [.unsafeFlags(["-sanitize=address", "-Xlinker", fuzzer, "-lstdc++"])]),
        .executableTarget(name: "LZWEncodeFuzz", dependencies: ["ClipKit", "FuzzDriver"], path: "Fuzz/LZWEncodeFuzz",
                          swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
                          linkerSettings: [.unsafeFlags(["-sanitize=address", "-Xlinker", fuzzer, "-lstdc++"])]),
        .executableTarget(name: "StdinFuzz", dependencies: ["ClipKit", "FuzzDriver"], path: "Fuzz/StdinFuzz",
                          swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
                          linkerSettings: [.unsafeFlags(["-sanitize=address", "-Xlinker", fuzzer, "-lstdc++"])]),
    ]
    package.products += [
        .executable(name: "GIFDecoderFuzz", targets: ["GIFDecoderFuzz"]),
        .executable(name: "ManifestFuzz", targets: ["ManifestFuzz"]),
        .executable(name: "VideoDecodeFuzz", targets: ["VideoDecodeFuzz"]),
        .executable(name: "LZWEncodeFuzz", targets: ["LZWEncodeFuzz"]),
        .executable(name: "StdinFuzz", targets: ["StdinFuzz"]),
    ]
}
