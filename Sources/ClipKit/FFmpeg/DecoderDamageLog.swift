// Damage a decoder on frame threads tells of only in its log: noted per codec context, for the decode to be done again on one thread.
@_weakLinked import CFFmpeg
import Foundation

/// FFmpeg's H.264 decoder on frame threads hands a picture on before its error concealment has
/// run: whether the picture comes out flagged as damaged depends on which thread gets there
/// first. Gave up at that flag, a decode of one damaged file was done again on one thread in
/// some runs and not in others (2 outputs in 6 runs for 4 of 20 H.264 FLVs with one byte
/// changed, under load). What the decoder logs does not race: the slice errors and the
/// concealment it runs ("concealing N DC, N AC, N MV errors"), from whichever thread decoded the
/// picture. Each decode that may be given up for damage (`CodecContext.reportsDamage()`) carries
/// a token as its context's `opaque`, which FFmpeg copies into every frame thread's context; the
/// log callback notes the tokens of contexts that logged an error or a concealment. Nothing is
/// printed: the callback replaces FFmpeg's, as the quiet log level did.
enum DecoderDamageLog {
    private struct Tokens {
        var next = 1
        var damaged: Set<Int> = []
        /// Format contexts (their addresses) whose demuxer logged that the file ended inside an
        /// element (`FormatContext.endedInsideElement`).
        var endedEarly: Set<Int> = []
    }
    private static let tokens = LockedBox(Tokens())

    /// Installs the log callback (once, when the libraries load).
    static func install() {
        av_log_set_callback { context, level, format, _ in
            guard let context, level <= AV_LOG_INFO else { return }
            // Matroska's demuxer meeting the end of the file inside an element (a cluster or
            // block cut off): the only word it gives of a file cut where it states no length.
            if let logged = context.load(as: UnsafePointer<AVClass>?.self), logged == avformat_get_class(),
               let format, strncmp(format, DecoderDamageLog.endedEarlyMessage, strlen(DecoderDamageLog.endedEarlyMessage)) == 0 {
                let address = Int(bitPattern: context)
                DecoderDamageLog.tokens.withLock { _ = $0.endedEarly.insert(address) }
                return
            }
            // Errors, and the error concealment's report (logged as information).
            guard level <= AV_LOG_ERROR || format.map({ strncmp($0, "concealing ", 11) == 0 }) == true else { return }
            guard let logged = context.load(as: UnsafePointer<AVClass>?.self), logged == avcodec_get_class() else { return }
            let codec = context.assumingMemoryBound(to: AVCodecContext.self)
            guard let opaque = codec.pointee.opaque else { return }
            let token = Int(bitPattern: opaque)
            DecoderDamageLog.tokens.withLock { _ = $0.damaged.insert(token) }
        }
    }

    /// What matroskadec logs (as a warning) when the file ends inside an element.
    static let endedEarlyMessage = "File ended prematurely"

    /// Whether the format context at `address` logged `endedEarlyMessage`.
    static func endedEarly(_ address: Int) -> Bool {
        tokens.withLock { $0.endedEarly.contains(address) }
    }

    /// Forgets the format context at `address` (made, or about to be freed: the address may be
    /// another's next).
    static func forgetFormat(_ address: Int) {
        tokens.withLock { _ = $0.endedEarly.remove(address) }
    }

    /// A new token for a codec context to carry.
    static func register() -> Int {
        tokens.withLock { tokens in
            defer { tokens.next += 1 }
            return tokens.next
        }
    }

    /// Whether the context carrying `token` logged damage (then or since the last call).
    static func takeDamage(_ token: Int) -> Bool {
        tokens.withLock { $0.damaged.remove(token) != nil }
    }

    /// Forgets `token` once its context is freed (its threads joined).
    static func forget(_ token: Int) {
        tokens.withLock { _ = $0.damaged.remove(token) }
    }
}
