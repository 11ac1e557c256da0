// FFmpeg headers for Swift, plus accessors for the function-like macros Swift cannot import.
#ifndef CLIPKIT_CFFMPEG_SHIM_H
#define CLIPKIT_CFFMPEG_SHIM_H
#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/cpu.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/log.h>
#include <libavutil/hash.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/opt.h>

static inline int ck_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int ck_averror_eof(void) { return AVERROR_EOF; }
static inline int ck_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int ck_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int ck_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int ck_averror_eio(void) { return AVERROR(EIO); }
static inline int64_t ck_av_nopts_value(void) { return AV_NOPTS_VALUE; }

/* A decoded frame's duration in its time base (0 when unknown): AVFrame.duration since libavutil
   57.36, pkt_duration (deprecated since) before it. */
static inline int64_t ck_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 36, 100)
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}

/* Whether a decoded frame is interlaced (two fields woven), and whether its top field comes
   first: AVFrame.flags since libavutil 58.29 (FFmpeg 6.1), interlaced_frame and top_field_first
   (removed in FFmpeg 7) before it. */
static inline int ck_frame_interlaced(const AVFrame *frame) {
#ifdef AV_FRAME_FLAG_INTERLACED
    return (frame->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return frame->interlaced_frame != 0;
#endif
}
static inline int ck_frame_top_field_first(const AVFrame *frame) {
#ifdef AV_FRAME_FLAG_TOP_FIELD_FIRST
    return (frame->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST) != 0;
#else
    return frame->top_field_first != 0;
#endif
}

/* av_err2str is a macro around a compound literal. */
static inline void ck_av_strerror(int err, char *buf, size_t size) { av_strerror(err, buf, size); }
#endif
