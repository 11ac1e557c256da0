// Loads libavformat, libavcodec and libswscale when first needed, not at process start.
@_weakLinked import CFFmpeg
import Foundation

/// FFmpeg's decoding libraries and their dependencies are about 130 shared libraries, whose
/// loading and relocation took 40 ms of every clipkit run, including `--version` and runs where
/// every output is up to date. The executable does not link them (`Package.swift` links
/// libavutil only, and `CFFmpeg` is imported `@_weakLinked`, so the other symbols resolve on
/// first call); every path into them calls `load()` first, which opens them once for the process
/// with `RTLD_GLOBAL`. Where a program links them anyway (the tests), loading finds them loaded.
enum FFmpegLibraries {
    /// The sonames this build's headers belong to.
    static let names = [
        "libswscale.so.\(LIBSWSCALE_VERSION_MAJOR)",
        "libavcodec.so.\(LIBAVCODEC_VERSION_MAJOR)",
        "libavformat.so.\(LIBAVFORMAT_VERSION_MAJOR)",
    ]

    private static let outcome: Result<Void, ClipKitError> = {
        // With LD_BIND_NOW the loader bound the weak calls to nothing at start-up: refuse
        // instead of crashing (the executable re-runs itself without it).
        if let now = getenv("LD_BIND_NOW"), now.pointee != 0 {
            return .failure(.internalFailure(path: "FFmpeg", reason: "LD_BIND_NOW is set; unset it to load the FFmpeg libraries lazily"))
        }
        for name in names where dlopen(name, RTLD_LAZY | RTLD_GLOBAL) == nil {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.internalFailure(path: name, reason: "cannot load the FFmpeg library: \(reason) (install libavformat, libavcodec and libswscale)"))
        }
        av_log_set_level(AV_LOG_QUIET)
        DecoderDamageLog.install()
        return .success(())
    }()

    /// Opens the libraries once; later calls return at once (or throw the first failure again).
    static func load() throws {
        try outcome.get()
    }
}
