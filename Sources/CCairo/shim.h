// cairo (PNG, PDF and SVG surfaces) and pango on cairo, from Debian's libcairo2-dev and
// libpango1.0-dev. Include paths come from pkg-config ("pangocairo").
#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <pango/pangocairo.h>
// libpng for PNG output (Debian libpng-dev, which libcairo2-dev depends on; cairo links libpng
// itself, so nothing new is loaded).
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned char *bytes; size_t count, capacity; } passconduit_png_sink;

static void passconduit_png_write(png_structp png, png_bytep data, size_t length) {
    passconduit_png_sink *sink = (passconduit_png_sink *)png_get_io_ptr(png);
    if (sink->count + length > sink->capacity) {
        size_t wanted = (sink->count + length) * 2;
        unsigned char *grown = (unsigned char *)realloc(sink->bytes, wanted);
        if (grown == NULL) png_error(png, "out of memory");
        sink->bytes = grown;
        sink->capacity = wanted;
    }
    memcpy(sink->bytes + sink->count, data, length);
    sink->count += length;
}

static void passconduit_png_flush(png_structp png) { (void)png; }

/// Encodes a cairo ARGB32 image (premultiplied, native-endian 32-bit pixels, `stride` bytes per
/// row) as an 8-bit RGBA PNG: the UP row filter and zlib level 1. cairo's own writer tries every
/// filter on every row at zlib's default level, a quarter of a `render` process; this is four to
/// five times faster for files about a third larger (Benchmarks/render). libpng reports errors
/// by longjmp, so it is called from C. Returns 0 and a malloc'd buffer (`*out`, `*count`; the
/// caller frees it), or -1.
static inline int passconduit_png_encode_argb32(const unsigned char *data, int width, int height, int stride,
                                                unsigned char **out, size_t *count) {
    *out = NULL;
    *count = 0;
    if (width <= 0 || height <= 0) return -1;
    passconduit_png_sink *sink = (passconduit_png_sink *)calloc(1, sizeof *sink);
    unsigned char *row = (unsigned char *)malloc((size_t)width * 4);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (sink == NULL || row == NULL || png == NULL || info == NULL) {
        if (png) png_destroy_write_struct(&png, info ? &info : NULL);
        free(row);
        free(sink);
        return -1;
    }
    // Nothing below setjmp changes sink, row, png or info themselves: after a longjmp they
    // still hold what they held (C11 7.13.2.1).
    // png_jmpbuf(png), spelled out so script/gen-lazy-shims sees the call (libpng is loaded on
    // first use, with cairo, through CCairoLazy's trampolines).
    if (setjmp(*png_set_longjmp_fn(png, longjmp, sizeof(jmp_buf)))) {
        png_destroy_write_struct(&png, &info);
        free(sink->bytes);
        free(sink);
        free(row);
        return -1;
    }
    png_set_write_fn(png, sink, passconduit_png_write, passconduit_png_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_compression_level(png, 1);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        const unsigned char *in = data + (size_t)y * (size_t)stride;
        for (int x = 0; x < width; x++) {
            uint32_t p;
            memcpy(&p, in + (size_t)x * 4, 4);
            uint32_t a = p >> 24, r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF;
            if (a != 0 && a != 255) {  // premultiplied: c = c' * 255 / a, rounded; c' <= a
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
            }
            unsigned char *o = row + (size_t)x * 4;
            o[0] = (unsigned char)r;
            o[1] = (unsigned char)g;
            o[2] = (unsigned char)b;
            o[3] = (unsigned char)a;
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    *out = sink->bytes;
    *count = sink->count;
    free(sink);
    return 0;
}
