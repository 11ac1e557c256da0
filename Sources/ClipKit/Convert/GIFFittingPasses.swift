// `--max-bytes` passes: when no lossy level of one pass fits, fewer colours and a coarser
// threshold, then a width fitted to the sizes the passes reached; the quality floor's retries.
import Foundation

extension GIFConverter {
    /// `--max-bytes`: the passes below; when the GIF that fits measures below the quality floor,
    /// again with a picture 3/4 as wide (a smaller picture needs less loss to fit).
    func convertFitting(video url: URL, to destination: URL, poster: URL?, options: GIFOptions,
                        stamp: FingerprintStage) throws -> ConversionResult {
        var attempt = options
        for _ in 0..<Self.floorRetries {
            do {
                return try convertPasses(video: url, to: destination, poster: poster, options: attempt, stamp: stamp)
            } catch let low as BelowQualityFloor {
                let width = Int((Double(low.result.width) * 0.75).rounded(.down))
                guard width >= Self.smallestFittingWidth else { throw Self.belowFloor(low, path: url.path) }
                attempt.size = .width(width)
                try options.limits.checkDeadline(url.path)
            }
        }
        do {
            return try convertPasses(video: url, to: destination, poster: poster, options: attempt, stamp: stamp)
        } catch let low as BelowQualityFloor {
            throw Self.belowFloor(low, path: url.path)
        }
    }

    /// How many times a GIF that fits but measures below `minQuality` is made again, each time 3/4 as wide.
    static let floorRetries = 3

    /// `--max-bytes`: the pass with the options asked for, then (nothing fits) fewer colours and a
    /// coarser threshold, then a fitted width. Throws `BelowQualityFloor` when what fits measures
    /// below `options.minQuality`.
    private func convertPasses(video url: URL, to destination: URL, poster: URL?, options: GIFOptions,
                               stamp: FingerprintStage) throws -> ConversionResult {
        do {
            return try convertPass(video: url, to: destination, poster: poster, options: options, stamp: stamp)
        } catch let miss as DoesNotFit {
            guard let maxBytes = options.maxBytes else { throw miss }
            // Past the most lossy level: fewer colours and a coarser change threshold (8-15%
            // smaller on the test clips), then a smaller picture (bytes follow the area).
            var smaller = options
            smaller.colors = min(options.colors, 128)
            smaller.changeThreshold = max(options.changeThreshold, 2 * GIFOptions().changeThreshold)
            // Aim the second pass at 93% of the limit. Fewer colours and the coarser threshold save
            // about 9%; bytes then follow the area to a power below 1 (smaller pictures compress
            // worse): 0.73-0.76 on the 10 s bench clip, 0.55-0.6 on the motion fixture, from
            // full width down to half. The lower figure is taken (width = ratio^(1/1.2)): a
            // picture a little too small is made up by the ladder choosing less loss, one a
            // little too large costs a third pass. A projection from 40% of the clip ran 8% low
            // on the bench clip (its second half is busier).
            let estimate = Double(miss.smallest) / (miss.projected ? 0.92 : 1)
            let ratio = 0.93 * Double(maxBytes) / (estimate * 0.91)
            if ratio < 1 {
                let width = Int((Double(miss.width) * pow(ratio, 1 / 1.2)).rounded(.down))
                guard width >= Self.smallestFittingWidth else { throw Self.noFit(miss, limit: maxBytes, path: url.path) }
                smaller.size = .width(width)
            }
            let second: DoesNotFit
            do {
                return try convertPass(video: url, to: destination, poster: poster, options: smaller, stamp: stamp)
            } catch let miss as DoesNotFit {
                second = miss
            }
            // Each frame's colour table and headers do not shrink with the picture: fit
            // bytes = fixed + k * area through the last two passes and aim the next at 90% of
            // the limit (two passes at one size: bytes taken as proportional to the area). Up to
            // three such passes, each narrower than the last.
            var (before, last) = (miss, second)
            for _ in 0..<Self.fittedPasses {
                let a1 = Double(before.width * before.height), a2 = Double(last.width * last.height)
                let target = 0.9 * Double(maxBytes)
                var area = a2 * target / Double(last.smallest)
                if a1 != a2 {
                    let k = (Double(before.smallest) - Double(last.smallest)) / (a1 - a2)
                    let fixed = Double(last.smallest) - k * a2
                    if k > 0, target > fixed { area = (target - fixed) / k }
                }
                let width = Int((Double(last.width) * (area / a2).squareRoot()).rounded(.down))
                guard width >= Self.smallestFittingWidth, width < last.width else { break }
                smaller.size = .width(width)
                try options.limits.checkDeadline(url.path)
                do {
                    return try convertPass(video: url, to: destination, poster: poster, options: smaller, stamp: stamp)
                } catch let next as DoesNotFit {
                    (before, last) = (last, next)
                }
            }
            throw Self.noFit(last, limit: maxBytes, path: url.path)
        }
    }

    /// Passes after the second with a width fitted to the ones before.
    static let fittedPasses = 3

    static func belowFloor(_ low: BelowQualityFloor, path: String) -> ClipKitError {
        let r = low.result
        return .cannotFit(path: path, reason: String(
            format: "no GIF of SSIMULACRA2 %.3g or more fits in %d bytes; the one that fits measures %.1f (%d bytes, %dx%d, lossy %d, %d colours): raise --max-bytes, lower --min-quality, or lower --fps or --duration",
            low.floor, low.limit, r.ssimulacra2 ?? 0, r.bytes, r.width, r.height, r.settings.lossy, r.settings.colors))
    }

    /// `--max-bytes` does not go below this width.
    static let smallestFittingWidth = 16

    static func noFit(_ miss: DoesNotFit, limit: Int, path: String) -> ClipKitError {
        .cannotFit(path: path, reason: "no GIF fits in \(limit) bytes: the smallest clipkit made is \(miss.smallest) bytes (\(miss.width)x\(miss.height), most lossy); raise --max-bytes, or lower --fps or --duration")
    }
}
