// swift-tools-version:6.0
import PackageDescription

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
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
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
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "clipkit",
            dependencies: ["ClipKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "ClipKitTests", dependencies: ["ClipKit", "CGIF"]),
        .testTarget(name: "clipkitTests", dependencies: ["ClipKit", "clipkit"]),
    ],
    swiftLanguageModes: [.v5]
)
