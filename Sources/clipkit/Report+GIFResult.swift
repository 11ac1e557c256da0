// A run line for a GIF written.
import ClipKit

extension Report {
    init(_ result: GIFResult) {
        self.init(input: "", outputs: [result.url.path], status: .ok, frames: result.frameCount,
                  durationMs: result.durationCentiseconds * 10, width: result.width, height: result.height, bytes: result.bytes)
        ssim = result.ssim.map { ($0 * 10000).rounded() / 10000 }
        ssimulacra2 = result.ssimulacra2.map { ($0 * 100).rounded() / 100 }
        ssimulacra2P5 = result.ssimulacra2P5.map { ($0 * 100).rounded() / 100 }
        durationErrorMs = result.durationErrorMilliseconds
        settings = ["lossy": result.settings.lossy, "lossy_max": result.raisedLossy ?? result.settings.lossy,
                    "lossy_min": result.loweredLossy ?? result.settings.lossy, "colors": result.settings.colors,
                    "threshold": result.settings.changeThreshold, "palette_error": result.settings.paletteError]
    }
}
