#!/usr/bin/env python3
"""Writes the corpus of hostile inputs in Fixtures/hostile/: files that are valid, or nearly so,
and small, but cost a naive tool far more than their size (memory, time, output), change shape
mid-stream, carry absurd timing, or try to make clipkit read outside where it was pointed.

Usage: python3 Fixtures/make-hostile-fixtures.py

Stdlib only, plus ffmpeg (5.1, with libx264) for the H.264 streams and the Matroska and AVI
containers. GIFs, PNGs and JPEGs are written byte by byte (the LZW encoder is the one in
make_gif_fixtures.py); random choices use fixed seeds, so the output is deterministic.
Never needed at test time. Writes Fixtures/hostile/README.md describing every file it writes,
and the hostile situations a test must create at run time (they cannot be committed).

Fixtures/bad/ is about broken files; this corpus is about cost and containment. Every command
run over every file here must end within a time bound (by itself, by a limit, or by --timeout),
never by a signal, with peak memory far below what the file claims, and exit 0 or 1 with a
one-line message on 1 and no output file on 1. The per-file "must" column says more.
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hostile")

sys.dont_write_bytecode = True  # no __pycache__ in Fixtures/ from the import below
sys.path.insert(0, HERE)
from make_gif_fixtures import lzw_codes, lzw_decode_count, pack_codes, sub_blocks  # noqa: E402

FF = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags", "+bitexact", "-map_metadata", "-1"]
X264 = ["-c:v", "libx264", "-threads", "1", "-preset", "medium", "-pix_fmt", "yuv420p"]
NO_SEI = ["-bsf:v", "filter_units=remove_types=6"]  # drops x264's version/options SEI

MAX_FILE = 120 * 1024
MAX_TOTAL = 1536 * 1024

# (name, bytes, class, what it is, what clipkit must do), in the order written.
written = []


def put(name, data, kind, what, must):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    assert len(data) < MAX_FILE, (name, len(data))
    written.append((name, len(data), kind, what, must))


def ffmpeg(*args):
    subprocess.run(FF + list(args), check=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---------------------------------------------------------------------------------------------
# GIF pieces


def gif_header(width, height, palette=None, background=0):
    """GIF89a header and logical screen; palette: list of (r, g, b) (padded to a power of 2)
    as the global table, or None for no global table at all."""
    if palette is None:
        return b"GIF89a" + struct.pack("<HHBBB", width, height, 0x00, background, 0)
    return b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80 | table_bits(palette),
                                   background, 0) + table_bytes(palette)


def table_bits(palette):
    bits = 0
    while (2 << bits) < len(palette):
        bits += 1
    return bits


def table_bytes(palette):
    size = 2 << table_bits(palette)
    return b"".join(bytes(c) for c in palette) + b"\x00\x00\x00" * (size - len(palette))


NETSCAPE_LOOP_FOREVER = b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
TRAILER = b"\x3B"


def gce(delay, disposal=1, transparent=None):
    """Graphic control extension: delay in centiseconds, disposal 0-3, transparent index."""
    packed = (disposal << 2) | (1 if transparent is not None else 0)
    return b"\x21\xF9\x04" + struct.pack("<BHB", packed, delay, transparent or 0) + b"\x00"


def descriptor(left, top, width, height, local=None):
    packed = 0x80 | table_bits(local) if local is not None else 0
    head = b"\x2C" + struct.pack("<HHHHB", left, top, width, height, packed)
    return head + (table_bytes(local) if local is not None else b"")


def image_data(indices, min_size):
    """LZW minimum code size byte, the coded indices in sub-blocks, the block terminator."""
    data = pack_codes(lzw_codes(indices, min_size))
    assert lzw_decode_count(data, min_size, len(indices) + 1) == len(indices)
    return bytes([min_size]) + sub_blocks(data) + b"\x00"


# No pixel data: min code size 2, then either one sub-block holding clear (4) and end (5),
# 3 bits each LSB first (100 101 -> 0b00101100 = 0x2C), or no sub-block at all.
DATA_CLEAR_END = b"\x02\x01\x2C\x00"
DATA_EMPTY = b"\x02\x00"


def lzw_ratio_bomb(pixels):
    """LZW data (min code size 2, index 0 everywhere) for `pixels` pixels, as compressible as
    GIF allows: clear, 0, then codes 6, 7, ... 4095, each the previous string plus one more 0
    (the KwKwK case: lengths 2 ... 4091), then code 4095 (4091 pixels in 12 bits) over and over
    with the table full and no clear (a deferred clear, as giflib and browsers allow), the
    remainder, end. Returns (data, number of codes)."""
    clear, end = 4, 5
    codes = [clear, 0]
    left = pixels - 1
    code = 6
    while code < 4096 and left >= code - 4:
        codes.append(code)
        left -= code - 4
        code += 1
    longest = code - 1
    while left >= longest - 4:
        codes.append(longest)
        left -= longest - 4
    if left == 1:
        codes.append(0)
    elif left > 1:
        codes.append(left + 4)  # the table entry of exactly that many zeros
    codes.append(end)
    # Widths as the decoder sees them: it adds an entry for each code after the first one
    # following a clear, and widens when its next free code reaches 2**width (up to 12 bits).
    pairs = []
    width, next_code, first = 3, 6, True
    for c in codes:
        pairs.append((c, width))
        if c == clear:
            width, next_code, first = 3, 6, True
            continue
        if not first and next_code < 4096:
            next_code += 1
            if next_code == 1 << width and width < 12:
                width += 1
        first = False
    return pack_codes(pairs), len(codes)


def checker(width, height, a, b, cell):
    return [a if ((x // cell) + (y // cell)) % 2 == 0 else b
            for y in range(height) for x in range(width)]


# ---------------------------------------------------------------------------------------------
# PNG and JPEG


def png(width, height, colour_type, rows, palette=None, level=9):
    """A PNG with bit depth 8; rows: a function giving row y's bytes (without the filter byte)."""
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    raw = zlib.compressobj(level)
    idat = bytearray()
    for y in range(height):
        idat += raw.compress(b"\x00" + rows(y))
    idat += raw.flush()
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0))
    if palette is not None:
        out += chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    return out + chunk(b"IDAT", bytes(idat)) + chunk(b"IEND", b"")


def flat_gray_jpeg(width, height, level):
    """A baseline greyscale JPEG of one flat grey level, as small as baseline allows: quant
    table all 1, a DC table with two codes ('0' = no change, '10' = the first block's value)
    and an AC table whose only code is end-of-block ('0'), so every block after the first
    costs 2 bits (4000x4000: 250000 blocks, 62.5 KB)."""
    dc = 8 * (level - 128)  # DC coefficient of a flat 8x8 block, level-shifted, quantiser 1
    cat = abs(dc).bit_length()

    def segment(marker, body):
        return b"\xFF" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body

    dqt = segment(0xDB, b"\x00" + b"\x01" * 64)
    sof = segment(0xC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
    if cat:
        dc_table = b"\x00" + bytes([1, 1] + [0] * 14) + bytes([0, cat])
    else:
        dc_table = b"\x00" + bytes([1] + [0] * 15) + bytes([0])
    ac_table = b"\x10" + bytes([1] + [0] * 15) + b"\x00"
    dht = segment(0xC4, dc_table + ac_table)
    sos = segment(0xDA, b"\x01\x01\x00\x00\x3F\x00")
    bits = []
    if cat:
        bits += [1, 0]
        value = dc if dc > 0 else dc + (1 << cat) - 1
        bits += [(value >> (cat - 1 - i)) & 1 for i in range(cat)]
    else:
        bits += [0]
    bits += [0]  # EOB
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    # The first block's bits, then 2 zero bits per further block, then 1-bit padding.
    total = len(bits) + 2 * (blocks - 1)
    pad = -total % 8
    stream = bytearray((total + pad) // 8)
    for i, bit in enumerate(bits):
        if bit:
            stream[i // 8] |= 0x80 >> (i % 8)
    for i in range(total, total + pad):
        stream[i // 8] |= 0x80 >> (i % 8)
    scan = bytes(stream).replace(b"\xFF", b"\xFF\x00")  # byte stuffing
    return b"\xFF\xD8" + dqt + sof + dht + sos + scan + b"\xFF\xD9"


# ---------------------------------------------------------------------------------------------
# Manifests


def manifest(files, canvas=(16, 16), delay=10):
    frames = []
    for f in files:
        fields = [
            '"file": %s' % json_string(f), '"delay_cs": %d' % delay, '"delay_ms": %d' % (delay * 10),
            '"left": 0', '"top": 0', '"width": %d' % canvas[0], '"height": %d' % canvas[1],
            '"disposal": "none"', '"transparent_index": null', '"interlaced": false',
            '"local_palette": false',
        ]
        frames.append("    { " + ", ".join(fields) + " }")
    return ("{\n  \"source\": \"hostile.gif\",\n"
            "  \"canvas\": { \"width\": %d, \"height\": %d },\n"
            "  \"loop_count\": 0,\n  \"duration_ms\": %d,\n  \"frames\": [\n%s\n  ]\n}\n"
            % (canvas[0], canvas[1], delay * 10 * len(files), ",\n".join(frames))).encode()


def json_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rgba_png(width, height, rgba):
    return png(width, height, 6, lambda y: bytes(rgba) * width)


# ---------------------------------------------------------------------------------------------

WHITE_BLACK = [(0, 0, 0), (255, 255, 255)]
FOUR = [(0, 0, 0), (230, 30, 30), (30, 200, 60), (40, 60, 230)]


def gif_bombs():
    kind = "1 GIF cost"
    n = 3000
    canvas = gif_header(10000, 10000, WHITE_BLACK) + NETSCAPE_LOOP_FOREVER
    full = descriptor(0, 0, 10000, 10000)
    put("gif_empty_images_10k.gif",
        canvas + (gce(0, 1) + full + DATA_CLEAR_END) * n + TRAILER, kind,
        "10000x10000 canvas (exactly the default --max-pixels, 100 Mpixel); %d images, each "
        "declaring the full 10000x10000, delay 0, disposal none, whose data is one sub-block "
        "holding only clear + end: no pixel is decoded. All delays are 0, so (as browsers do) "
        "each image is its own displayed frame" % n,
        "bounded time and memory, not %d x 100 Mpixel of compositing: an image with no decoded "
        "pixels must not cost a canvas pass (or the total work is refused by a limit naming "
        "its option); warns about the missing data; --timeout 10 ends it if nothing else does; "
        "explode must not write %d 100 Mpixel PNGs (--max-frames / --max-output)" % (n, n))
    put("gif_empty_images_10k_nodata.gif",
        canvas + (gce(0, 1) + full + DATA_EMPTY) * n + TRAILER, kind,
        "as gif_empty_images_10k.gif, but each image's data is just the min code size byte "
        "and the block terminator (no sub-block at all)",
        "as gif_empty_images_10k.gif")
    put("gif_empty_images_10k_previous.gif",
        canvas + (gce(0, 3) + full + DATA_CLEAR_END) * n + TRAILER, kind,
        "as gif_empty_images_10k.gif with disposal 3 (restore previous) on every image: a "
        "naive compositor saves the 10000x10000 rectangle (400 MB RGBA) before each of the "
        "%d images" % n,
        "as gif_empty_images_10k.gif; memory stays at one saved rectangle (the Compositor's "
        "documented bound), never one per image; RSS well under 1 GB")
    put("gif_canvas_10k_one_pixel.gif",
        gif_header(10000, 10000, WHITE_BLACK) + gce(100, 1) + descriptor(0, 0, 1, 1)
        + b"\x02\x02\x44\x01\x00" + TRAILER, kind,
        "valid: 10000x10000 canvas (exactly 100 Mpixel, the default --max-pixels) with one 1x1 "
        "image at (0,0), delay 1 s",
        "either refuse (canvas limit, one line naming --max-pixels) or produce it in bounded "
        "memory: thumb/gif scale a 100 Mpixel canvas that is all transparent but one pixel; "
        "explode writes one 10000x10000 PNG (small: flat); info reports 10000x10000 without "
        "decoding; RSS well under 1 GB is the target (one RGBA canvas is 400 MB)")

    side = 8000
    data, count = lzw_ratio_bomb(side * side)
    assert lzw_decode_count(data, 2, side * side + 1) == side * side
    put("gif_lzw_ratio_bomb_8k.gif",
        gif_header(side, side, [(20, 120, 220), (0, 0, 0)]) + gce(100, 1)
        + descriptor(0, 0, side, side)
        + b"\x02" + sub_blocks(data) + b"\x00" + TRAILER, kind,
        "valid: one %dx%d image (64 Mpixel, under the default --max-pixels) whose LZW data "
        "(%d bytes, %d codes, ratio %d:1) is as compressible as GIF allows: codes build runs "
        "of index 0 (blue, opaque) of length 2 ... 4091, then repeat the 4091-pixel code "
        "with the table full and no clear (deferred clear). Pillow, ffmpeg and gifsicle "
        "decode it to 64 M pixels of index 0"
        % (side, side, len(data), count, side * side // len(data)),
        "decode it (exit 0) in bounded memory: the index buffer and one RGBA canvas (64 M + "
        "256 MB), not several copies; time linear in pixels (a few seconds at most); or "
        "refuse with a limit naming its option. Must not treat the full table without a clear "
        "as an error")

    # Zero-delay floods on a 200x200 canvas: 4000 one-pixel images, each at its own spot.
    n = 4000
    rng = random.Random(5)
    head = gif_header(200, 200, FOUR) + NETSCAPE_LOOP_FOREVER

    def dot(i, delay):
        return (gce(delay, 1) + descriptor(i % 200, i // 200, 1, 1)
                + image_data([1 + i % 3], 2))

    put("gif_zero_delay_flood.gif",
        head + b"".join(dot(i, 0) for i in range(n)) + dot(n, 100) + TRAILER, kind,
        "200x200 canvas, %d one-pixel images with delay 0 (each at its own spot, colours "
        "cycling), then one with delay 100 cs: browsers show all of them as one frame" % n,
        "one displayed frame of 1 s (explode: 1 PNG, delay_cs 100; gif: 1 frame); memory must "
        "not grow with the number of merged images (no per-image canvas copy kept)")
    delays = [rng.choice((0, 1)) for _ in range(n)]
    put("gif_delay_0_1_flood.gif",
        head + b"".join(dot(i, delays[i]) for i in range(n)) + dot(n, 100) + TRAILER, kind,
        "as gif_zero_delay_flood.gif, but each of the %d images has delay 0 or 1 cs (seed 5: "
        "%d of delay 1), then one with delay 100 cs: the delay-0 images merge into the next "
        "delay-1 image, giving %d displayed frames: %d of 10 ms and a final one of 1 s"
        % (n, sum(delays), sum(delays) + 1, sum(delays)),
        "explode: %d PNGs (under --max-frames 10000) with the stored delays (%d cs in all); "
        "gif and info: either the stored timing (%.2f s) or browser timing (delays under 2 cs "
        "play as 10 cs: %.2f s), the same rule in both and documented; gif never writes a "
        "delay under 2 cs; bounded time"
        % (sum(delays) + 1, sum(delays) + 100, (sum(delays) + 100) / 100.0,
           (sum(delays) * 10 + 100) / 100.0))

    # Minimum code sizes above 8: outside the GIF spec's 2..8, but 9-11 still give codes of at
    # most 12 bits, and Pillow, ffmpeg and gifsicle decode them.
    rng = random.Random(9)
    grey = [(i, i, i) for i in range(256)]
    indices = [(x * 4 + y * 2 + rng.randrange(4)) % 256 for y in range(64) for x in range(64)]
    for size in (9, 10, 11):
        put("gif_min_code_size_%d.gif" % size,
            gif_header(64, 64, grey) + gce(10, 1) + descriptor(0, 0, 64, 64)
            + image_data(indices, size) + TRAILER, kind,
            "64x64, 256-grey global palette, one image whose LZW minimum code size is %d "
            "(the spec allows 2-8): clear = %d, codes start %d bits wide; a diagonal gradient "
            "with noise (seed 9), table filled and cleared several times. Pillow, ffmpeg and "
            "gifsicle decode it" % (size, 1 << size, size + 1),
            "decode it like those decoders (same 4096 pixels as min code size 8 would give), "
            "or refuse with a one-line 'corrupt' error; never read or write past the 4096-entry "
            "code table")

    put("gif_no_palette_transparent.gif",
        gif_header(16, 16, None) + gce(100, 1, transparent=0) + descriptor(0, 0, 16, 16)
        + image_data([0] * 256, 2) + TRAILER, kind,
        "16x16, no global and no local colour table; the graphic control block sets "
        "transparent index 0 and every pixel is index 0. ffmpeg refuses it (\"picture "
        "doesn't have either global or local palette\"); Pillow decodes it fully transparent",
        "no read past the (empty) palette. Decoders disagree on a transparent index beyond "
        "the palette (clipkit's Compositor ignores it and draws indices beyond the palette "
        "opaque black); whichever rule, explode/gif/thumb must agree and the result be "
        "documented; the intended result is a fully transparent frame (the only index used is "
        "the one declared transparent)")
    put("gif_no_palette_mixed.gif",
        gif_header(16, 16, None) + gce(100, 1, transparent=0) + descriptor(0, 0, 16, 16)
        + image_data(checker(16, 16, 0, 1, 4), 2) + TRAILER, kind,
        "as gif_no_palette_transparent.gif, but 4x4 checker of index 0 (the transparent "
        "index) and index 1 (no colour anywhere). ffmpeg refuses it; Pillow gives "
        "transparent and opaque (1,1,1) cells (its default greyscale palette)",
        "as gif_no_palette_transparent.gif: index-1 pixels have no colour (clipkit: opaque "
        "black), index-0 pixels transparent or, under clipkit's rule, black too; never "
        "garbage from outside a palette")

    first = checker(20, 20, 0, 2, 2)
    put("gif_partial_transparent_first.gif",
        gif_header(40, 30, FOUR, background=1) + NETSCAPE_LOOP_FOREVER
        + gce(50, 1, transparent=0) + descriptor(10, 5, 20, 20) + image_data(first, 2)
        + gce(50, 2) + descriptor(0, 0, 10, 10) + image_data([3] * 100, 2) + TRAILER, kind,
        "40x30 canvas, background index 1 (red, which browsers ignore); image 1 covers only "
        "(10,5) 20x20: a 2x2 checker of index 0 (transparent) and green, delay 50; image 2 "
        "an opaque blue 10x10 at (0,0), delay 50, disposal background",
        "transparency kept: explode frame 0 has alpha 0 everywhere outside (10,5)-(30,25) and "
        "on the checker's index-0 cells (never red, never black), frame 1 adds the blue "
        "square; the gif output keeps those pixels transparent (a transparent index in its "
        "frames); thumb either keeps alpha or documents flattening")


def video_growth(tmp):
    kind = "2 video growth"
    jpegs = []
    for level in (40, 80, 120, 160, 200):
        jpegs.append(flat_gray_jpeg(160, 120, level))
    jpegs.append(flat_gray_jpeg(4000, 4000, 230))
    jpegs.append(flat_gray_jpeg(160, 120, 100))
    for i, j in enumerate(jpegs):
        with open(os.path.join(tmp, "f%02d.jpg" % i), "wb") as f:
            f.write(j)
    avi = os.path.join(tmp, "grow.avi")
    ffmpeg("-f", "image2", "-framerate", "10", "-i", os.path.join(tmp, "f%02d.jpg"),
           "-c:v", "copy", *BITEXACT, avi)
    put("mjpeg_grows_4000.avi", read(avi), kind,
        "MJPEG in AVI, 10 fps, 7 greyscale frames: the stream header and frames 0-4 are "
        "160x120 (flat greys), frame 5 is 4000x4000 (flat, 62 KB: the smallest baseline "
        "JPEG), frame 6 is 160x120 again. The probe says 160x120",
        "either follow the size change (scaler and buffers rebuilt for each decoded frame "
        "size, output at the first frame's size or refused) or stop with a one-line error; "
        "never use a 160x120 buffer for a 4000x4000 frame. The per-frame size must be checked "
        "against --max-pixels on every decoded frame, not only the header (test: "
        "--max-pixels 1000000 must refuse at frame 5)")

    small = os.path.join(tmp, "small.h264")
    big = os.path.join(tmp, "big.h264")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", *X264, "-crf", "35",
           "-bf", "0", *BITEXACT, *NO_SEI, "-f", "h264", small)
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=10:duration=0.3", *X264,
           "-crf", "51", "-bf", "0", *BITEXACT, *NO_SEI, "-f", "h264", big)
    a, b = read(small), read(big)
    put("h264_grows_1080p.h264", a + b, kind,
        "raw Annex B H.264 (no container, no timestamps): a 160x120 x264 stream of 10 frames "
        "(%d bytes) followed by a 1920x1080 one of 3 frames (%d bytes), each with its own "
        "SPS/PPS (both id 0); the probe reports 160x120" % (len(a), len(b)),
        "as mjpeg_grows_4000.avi: the size change at the second SPS is handled (scaler "
        "rebuilt) or refused with a one-line error; --max-pixels checked per decoded frame")


def timing(tmp):
    kind = "3 timing"
    base = os.path.join(tmp, "base.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", *X264,
           "-crf", "35", "-bf", "0", "-g", "5", "-keyint_min", "5", "-sc_threshold", "0",
           *BITEXACT, base)
    gap = os.path.join(tmp, "gap.mkv")
    ffmpeg("-i", base, "-c", "copy", *BITEXACT,
           "-bsf:v", "setts=ts=if(gte(N\\,5)\\,TS+700000\\,TS)", gap)
    put("gap_700s.mkv", read(gap), kind,
        "H.264 160x120 in Matroska: frames 0-4 at 0-0.4 s, frames 5-9 at 700.5-700.9 s (a "
        "700 s gap, more than a GIF delay can hold: 65535 cs = 655.35 s)",
        "gif: the frame before the gap lasts 700 s, so its delay is split across two GIF "
        "frames (or the clip is refused with --max-duration); never a wrapped 16-bit delay "
        "(700 s mod 655.36 = 44.6 s) nor one clamped to 655.35 s (44.75 s lost); the identical sampled frames in the gap merge instead "
        "of writing 7000 frames. explode: frames.json delays sum to the real duration and each "
        "fits 0-65535 cs (split the long frame), or the manifest is one `clipkit gif` itself "
        "rejects; explode --fps 10 has 7010 frames to write (under --max-frames): done, or "
        "stopped promptly by --timeout. info: duration about 701 s")

    # Timestamps out of order: the second cluster's timecode (0.4 s) edited to 65.535 s, so
    # frames 4-7 claim 65.5-65.8 s among frames under 1 s. (No CRC-32 elements: the edit stands.)
    clusters = os.path.join(tmp, "clusters.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", *X264,
           "-crf", "35", "-bf", "0", "-g", "5", "-keyint_min", "5", "-sc_threshold", "0",
           *BITEXACT, "-cluster_time_limit", "350", "-write_crc32", "0", clusters)
    data = bytearray(read(clusters))
    cluster = bytes.fromhex("1F43B675")
    second = data.find(cluster, data.find(cluster) + 4)
    assert second > 0
    size = 1  # the cluster's size, an EBML vint: its length from the first byte's leading zeros
    while not data[second + 4] & (0x80 >> (size - 1)):
        size += 1
    at = second + 4 + size
    assert data[at:at + 4] == b"\xe7\x82\x01\x90", data[at:at + 4].hex()  # Timecode, 2 bytes: 400 ms
    data[at + 2:at + 4] = b"\xff\xff"
    put("cluster_time_jump.mkv", bytes(data), kind,
        "H.264 160x120 in Matroska, 10 frames at 10 fps, whose second cluster's timecode is "
        "65.535 s instead of 0.4 s: frames 4-7 claim 65.5-65.8 s among frames under 1 s",
        "thumb --pick best: a thumbnail (the picker may score a frame at 65.x s that no seek "
        "finds again: then the first frame, with a warning), never 'start 65.735s is past the "
        "end'; every other command: its output or a one-line error")

    # An MP4 whose movie, track and media headers claim a fifth of its length: the frames run on
    # past the duration the container states.
    clip = os.path.join(tmp, "short_claim.mp4")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=2", *X264, "-crf", "30",
           "-bf", "0", "-g", "10", *BITEXACT, clip)
    data = bytearray(read(clip))
    for atom, skip in ((b"mvhd", 16), (b"mdhd", 16), (b"tkhd", 20)):
        at = data.find(atom)
        assert at > 0 and data[at + 4] == 0, atom  # version 0: 32-bit fields
        field = at + 4 + skip
        value = struct.unpack(">I", data[field:field + 4])[0]
        data[field:field + 4] = struct.pack(">I", max(1, value // 5))
    put("duration_understated.mp4", bytes(data), kind,
        "H.264 160x120 in MP4, 2 s at 10 fps (20 frames), whose mvhd, mdhd and tkhd durations "
        "claim 0.4 s",
        "every command uses all 20 frames or a one-line error, never a crash; gif --max-bytes "
        "(which projects a pass's size from the expected frame count) fits a limit the full "
        "clip needs a smaller GIF for, without taking the count for the truth")
    # The opposite: the index (moved to the front) promises all 20 frames, the file holds about half.
    front = os.path.join(tmp, "front.mp4")
    ffmpeg("-i", clip, "-c", "copy", "-movflags", "+faststart", *BITEXACT, front)
    whole = read(front)
    put("duration_overstated.mp4", whole[:len(whole) // 2], kind,
        "the same clip with its index at the front, cut at half its bytes: the index promises "
        "20 frames (2 s), about half are there",
        "the frames that are there, with a warning or a one-line error; gif --max-bytes fits "
        "near its limit (its passes project from the promised count, which proves wrong), not "
        "far under it")

    # The raw H.264 fixture with 64 bytes replaced at random (seed 3): damage FFmpeg's frame
    # threads conceal differently from run to run (5 different GIFs in 6 runs).
    data = bytearray(read(os.path.join(HERE, "video", "raw_annexb.h264")))
    rng = random.Random(3)
    for _ in range(64):
        at = rng.randrange(len(data))
        data[at] = rng.randrange(256)
    put("h264_flipped_64.h264", bytes(data), kind,
        "Fixtures/video/raw_annexb.h264 with 64 bytes replaced at random (Python's random, seed 3)",
        "the same output bytes every run (a decode on several threads that meets damage is done "
        "again on one), or the same one-line error")



def pngs():
    kind = "4 PNG"
    put("png_6000x6000_flat.png",
        png(6000, 6000, 3, lambda y: b"\x01" * 6000, palette=[(0, 0, 0), (20, 120, 220)]), kind,
        "valid 6000x6000 (36 Mpixel) 8-bit palette PNG of one flat colour; 36 MB of pixels in "
        "a few tens of KB",
        "`gif` with it and a smaller PNG: resize to one size or refuse mismatched sizes with "
        "one line; memory bounded by a few 144 MB RGBA frames at most; thumb scales it down; "
        "info reports 6000x6000 from the header")
    put("png_160x120_rgb.png",
        png(160, 120, 2, lambda y: bytes((y * 2, 100, 255 - y * 2)) * 160), kind,
        "valid 160x120 RGB PNG, vertical gradient",
        "the ordinary partner for `clipkit gif png_160x120_rgb.png png_97x31_rgba.png` and "
        "`... png_6000x6000_flat.png`")
    put("png_97x31_rgba.png",
        png(97, 31, 6, lambda y: b"".join(bytes((255, 200, 0, 255 if x < 48 else 0)) for x in range(97))),
        kind,
        "valid 97x31 RGBA PNG (odd size, right half fully transparent)",
        "`clipkit gif png_160x120_rgb.png png_97x31_rgba.png`: frames of different sizes "
        "either scaled/padded to one canvas (documented) or refused with one line naming both "
        "sizes; transparency of the right half kept if the output keeps alpha")

    # IHDR claims 50000x50000 RGBA (10 GB of pixels); the data is 3 rows, then IEND.
    def chunk(kind_, body):
        return (struct.pack(">I", len(body)) + kind_ + body
                + struct.pack(">I", zlib.crc32(kind_ + body) & 0xFFFFFFFF))
    rows = zlib.compress((b"\x00" + b"\x00\x00\x00\xFF" * 50000) * 3, 9)
    put("png_claims_50000x50000.png",
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 50000, 50000, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", rows) + chunk(b"IEND", b""), kind,
        "PNG whose IHDR says 50000x50000 RGBA (2.5 Gpixel, 10 GB decoded) but whose IDAT holds "
        "3 rows",
        "refused from the header (--max-pixels, one line) before any row buffer is allocated")


def manifests():
    kind = "5 manifest"
    red = rgba_png(16, 16, (220, 30, 30, 255))
    put("manifest_outside.png", rgba_png(16, 16, (30, 200, 60, 255)), kind,
        "valid 16x16 green PNG beside (outside) the manifest directories; the target of the "
        "`../` reference",
        "never read as a frame of any manifest below")
    cases = [
        ("manifest_dotdot.frames", "../manifest_outside.png",
         "frame 1 is `../manifest_outside.png`: an existing, valid PNG outside the directory"),
        ("manifest_absolute.frames", "/etc/passwd",
         "frame 1 is the absolute path `/etc/passwd`"),
        ("manifest_devzero.frames", "/dev/zero",
         "frame 1 is `/dev/zero` (reading it never ends)"),
        ("manifest_dotdot_bare.frames", "..",
         "frame 1 is `..` (the parent directory itself)"),
    ]
    for directory, target, what in cases:
        put(directory + "/frame_0000.png", red, kind,
            "valid 16x16 red PNG, frame 0 of %s/frames.json" % directory,
            "fine on its own")
        put(directory + "/frames.json", manifest(["frame_0000.png", target]), kind,
            "frames.json (16x16 canvas, 2 frames of 10 cs); frame 0 is frame_0000.png beside "
            "it, " + what,
            "`clipkit gif %s/frames.json`: exit 1, one line saying the frame must be a file "
            "name in the manifest's directory, checked before any file is opened; no output"
            % directory)


SITUATIONS = [
    ("symlink loop: a directory link to itself (`loop -> .` or `d/self -> ../d`)",
     "`-r` over the tree terminates, visits each real file once (or skips links to "
     "directories), no stack overflow, no error storm; exit 0 if the real files are fine"),
    ("two links to each other (`a -> b`, `b -> a`)",
     "given directly or found by a scan: one-line error per input (too many levels of symbolic "
     "links) or skipped in a scan; never a hang"),
    ("a link to `/` inside a scanned directory (`root -> /`)",
     "`-r` must not descend into the whole filesystem: links to directories are not followed "
     "(or only inside the input tree); bounded time"),
    ("an output directory inside the input directory (`clipkit thumb media/ -r -o media/previews`)",
     "outputs of this run are not picked up as inputs (of this run or the next: a second run "
     "skips them, no `previews/previews/...`)"),
    ("`-o .` with inputs in `.`, and `-o` equal to an input's own directory",
     "no output replaces an input (README: an output never replaces an input); `gif a.gif -o "
     ".` must not overwrite a.gif"),
    ("a huge `.clipkit-state.json` in the output directory (e.g. 2 GB sparse file, or 100 MB of "
     "`[[[[`), and one that is not JSON",
     "read with a size cap and a depth-safe parser, or ignored with a warning and rebuilt; "
     "never loaded whole, never a crash; the state is rewritten atomically"),
    ("file names with a newline, with non-UTF-8 bytes (`\\xff\\xfe.mp4`), with a leading dash "
     "(`-o.mp4`, `--help.gif`), and 250-255 byte names near NAME_MAX",
     "found by scans and processed; one-line errors and `--json` escape the name (the newline "
     "does not split the line, invalid bytes are escaped, not dropped or replaced by a name "
     "that collides); `--` ends options; an output name that would exceed NAME_MAX (stem + "
     "`.frames`, temp-file suffix) is an error for that input only"),
    ("two inputs with the same stem in one output directory (`a.mp4` and `a.mov` -> `a.gif`)",
     "distinct outputs or a one-line error for the second; never one silently overwriting the "
     "other, identical for any --jobs"),
    ("stdout a closed pipe (`clipkit info --json -r media/ \\| head -c1`)",
     "no SIGPIPE death mid-write of an output file: exits (0/1 or the conventional 141) "
     "promptly, leaves no temp files, outputs already renamed are complete"),
    ("a symlink in a manifest directory: `frames/frame_0001.png -> /etc/shadow` (or -> ../x.png)",
     "frames.json names only a file name, but that file is a link out of the directory: "
     "refused, or at least read as a PNG only (no content of a non-PNG target in the message)"),
    ("a FIFO listed as a manifest frame (`mkfifo frames/frame_0001.png`)",
     "not opened for reading (it would block): refused as not a regular file"),
]

CLI_CASES = [
    ("`clipkit explode Fixtures/video/counter.mp4 --fps 1e9` (a 4 s clip)",
     "usage error (exit 2) or bounded by --max-frames before any frame is written; never "
     "4e9 timestamps computed, an Int overflow trap, or a hang"),
    ("`clipkit gif ... --fps 1e9`, `--fps 0`, `--fps nan`, `--fps inf`, `--speed 1e-9`, "
     "`--speed 1e300`",
     "exit 2 with one line naming the option (gif's --fps is at most 50)"),
    ("`--start 1e300`, `--duration 1e-9`, `--end -1`, `thumb --at 1e308`, `thumb --at "
     "100000000000%`",
     "exit 2, or exit 1 past the end; no Double-to-Int conversion trap"),
    ("`--max-pixels 0`, `--max-frames -1`, `--timeout 0`, `--jobs 100000`",
     "exit 2, or a documented meaning; `--jobs` capped, not 100000 threads"),
    ("`clipkit explode mjpeg_grows_4000.avi --max-pixels 1000000`",
     "exit 1 at frame 5 (16 Mpixel), naming --max-pixels; no output directory left"),
]


def write_readme():
    total = sum(size for _, size, _, _, _ in written)
    lines = [
        "# Hostile inputs",
        "",
        "Written by `Fixtures/make-hostile-fixtures.py` (deterministic; stdlib and ffmpeg; never",
        "needed at test time). Where `Fixtures/bad/` holds broken files, these are small files",
        "that are valid or nearly so but cost a naive tool far more than their size, change",
        "frame size mid-stream, carry absurd timing, or point outside their directory.",
        "",
        "Every command (`gif`, `explode`, `thumb`, `info`) over every file must end within a time",
        "bound (by itself, a limit or `--timeout`), never by a signal, with peak RSS far below",
        "what the file claims (the target: under 1 GB for everything here), exit 0 or 1, a",
        "one-line message and no output on 1. The last column says what else is required.",
        "Each file is under %d KB; this directory holds %d bytes." % (MAX_FILE // 1024, total),
        "",
        "Classes: 1 GIF cost bombs and edge cases, 2 video whose frames grow mid-stream,",
        "3 absurd timing, 4 PNG inputs (`clipkit gif a.png b.png`), 5 frames.json manifests that",
        "point outside their directory (`clipkit gif DIR/frames.json`).",
        "",
        "| File | Bytes | Class | What it does | What clipkit must do |",
        "|---|---:|---|---|---|",
    ]
    for name, size, kind, what, must in written:
        lines.append("| `%s` | %d | %s | %s | %s |" % (name, size, kind, what, must))
    lines += [
        "",
        "## Command-line cases (no file needed)",
        "",
        "| Invocation | What clipkit must do |",
        "|---|---|",
    ]
    for case, must in CLI_CASES:
        lines.append("| %s | %s |" % (case, must))
    lines += [
        "",
        "## Situations made at test time (not committed)",
        "",
        "Symlinks, special files, odd names and pipes do not survive git (or would break a",
        "checkout), so a test creates them in a temporary directory, using the files above or",
        "`Fixtures/video/` as content.",
        "",
        "| Situation | What clipkit must do |",
        "|---|---|",
    ]
    for case, must in SITUATIONS:
        lines.append("| %s | %s |" % (case, must))
    lines.append("")
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("\n".join(lines))
    return total


def main():
    if shutil.which("ffmpeg") is None:
        sys.exit("make-hostile-fixtures: ffmpeg not found")
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    tmp = tempfile.mkdtemp(prefix="clipkit-hostile-")
    try:
        gif_bombs()
        video_growth(tmp)
        timing(tmp)
    finally:
        shutil.rmtree(tmp)
    pngs()
    manifests()
    total = write_readme()
    assert total < MAX_TOTAL, total
    print("make-hostile-fixtures: wrote %d files, %d bytes in %s" % (len(written), total, OUT))


if __name__ == "__main__":
    main()
