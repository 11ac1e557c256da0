// libpng for Swift (the simplified png_image API, which reports errors without longjmp) and
// zlib, which the PNG writer drives directly; deflateInit is a macro.
#ifndef CLIPKIT_CPNG_SHIM_H
#define CLIPKIT_CPNG_SHIM_H
#include <stdio.h>
#include <png.h>
#include <zlib.h>
static inline int ck_deflate_init(z_stream *stream, int level) { return deflateInit(stream, level); }
static inline unsigned int ck_png_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline unsigned int ck_png_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline unsigned int ck_png_image_version(void) { return PNG_IMAGE_VERSION; }
static inline int ck_png_image_failed(const png_image *image) { return PNG_IMAGE_FAILED(*image); }
#endif
