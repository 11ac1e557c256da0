#!/usr/bin/env python3
"""Writes the small GIF fixtures in Fixtures/gif/ byte by byte, and expected.json: what a browser
shows for each, computed by the straightforward model below (not by clipkit).

Usage: python3 Fixtures/make_gif_fixtures.py   (stdlib only; output is deterministic)

expected.json maps a file name to either {"error": KIND} (corrupt, notMedia, limitExceeded) or
{"canvas": [w, h], "loop_count": n|null, "warns": bool, "frames": [...]}, where each displayed
frame lists the manifest fields of its last image and its summed delay; the composited canvas of
frame N is expected/NAME-N.png (RGBA).
"""
import json
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "gif")

DISPOSAL_NAMES = {0: "unspecified", 1: "none", 2: "background", 3: "previous"}

# ---------------------------------------------------------------------------------------------
# LZW


def pack_codes(codes):
    """Packs (code, width) pairs LSB first, as GIF does."""
    out = bytearray()
    acc = 0
    nbits = 0
    for code, width in codes:
        acc |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8
    if nbits:
        out.append(acc & 0xFF)
    return bytes(out)


def lzw_codes(indices, min_size, clear_when_full=True, end_code=True, stats=None):
    """A plain LZW encoder: (code, width) pairs for `indices`."""
    clear, end = 1 << min_size, (1 << min_size) + 1

    def fresh():
        return {(i,): i for i in range(clear)}, end + 1, min_size + 1

    table, next_code, width = fresh()
    codes = [(clear, width)]
    w = ()
    for k in indices:
        wk = w + (k,)
        if wk in table:
            w = wk
            continue
        codes.append((table[w], width))
        if next_code < 4096:
            table[wk] = next_code
            next_code += 1
            # The decoder, one entry behind, widens after the code that makes its table 2**width.
            if next_code > (1 << width) and width < 12:
                width += 1
        else:
            if stats is not None:
                stats["full"] = True
            if not clear_when_full:
                w = (k,)
                continue
            codes.append((clear, width))
            table, next_code, width = fresh()
        w = (k,)
    if w:
        codes.append((table[w], width))
        # The decoder adds an entry for this last code too (unless it follows a clear), and may
        # widen before reading the end code.
        if len(codes) > 1 and codes[-2][0] != clear and next_code >= (1 << width) and width < 12:
            width += 1
    if end_code:
        codes.append((end, width))
    return codes


def lzw_decode_count(data, min_size, limit):
    """How many pixels a decoder gets from `data` before it ends, fails or runs out (at most `limit`)."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    width = min_size + 1
    table = [(i,) for i in range(clear)] + [None, None]
    prev = None
    count = 0
    bitpos = 0
    total_bits = len(data) * 8
    while bitpos + width <= total_bits:
        code = 0
        for b in range(width):
            bit = (data[(bitpos + b) // 8] >> ((bitpos + b) % 8)) & 1
            code |= bit << b
        bitpos += width
        if code == clear:
            table = [(i,) for i in range(clear)] + [None, None]
            width = min_size + 1
            prev = None
            continue
        if code == end:
            break
        if code < len(table) and table[code] is not None:
            entry = table[code]
            if prev is not None and len(table) < 4096:
                table.append(prev + (entry[0],))
        elif code == len(table) and prev is not None and len(table) < 4096:
            entry = prev + (prev[0],)
            table.append(entry)
        else:
            break
        prev = entry
        count += len(entry)
        if len(table) == (1 << width) and width < 12:
            width += 1
    return min(count, limit)


def sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        out.append(len(chunk))
        out += chunk
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# Model of what browsers show


def interlace_order(height):
    """Display rows in stored order."""
    rows = []
    for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)):
        rows += list(range(start, height, step))
    return rows


def displayed_groups(delays):
    if not any(delays):
        return [[i] for i in range(len(delays))]
    groups, current = [], []
    for i, d in enumerate(delays):
        current.append(i)
        if d > 0:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


def composite(spec):
    w, h = spec["canvas"]
    canvas = [(0, 0, 0, 0)] * (w * h)
    images = spec["images"]
    ends = {g[-1]: g for g in displayed_groups([im.get("delay", 0) for im in images])}
    frames = []
    pending = None
    for n, im in enumerate(images):
        if pending:
            disposal, rect, saved = pending
            for (x, y) in rect:
                if disposal == 2:
                    canvas[y * w + x] = (0, 0, 0, 0)
                elif disposal == 3:
                    canvas[y * w + x] = saved[y * w + x]
        left, top, iw, ih = im.get("left", 0), im.get("top", 0), im["width"], im["height"]
        rect = [(x, y) for y in range(top, top + ih) for x in range(left, left + iw) if x < w and y < h]
        disposal = im.get("disposal", 1)
        saved = list(canvas) if disposal == 3 else None
        palette = im.get("local") or spec.get("global") or []
        ncolours = len(palette)
        transparent = im.get("transparent")
        decoded = im.get("decoded", iw * ih)
        stored_row = {row: i for i, row in enumerate(interlace_order(ih) if im.get("interlaced") else range(ih))}
        for (x, y) in rect:
            ix, iy = x - left, y - top
            if stored_row[iy] * iw + ix >= decoded:
                continue
            index = im["indices"][iy * iw + ix]
            if transparent is not None and transparent < ncolours and index == transparent:
                continue
            canvas[y * w + x] = tuple(palette[index]) + (255,) if index < ncolours else (0, 0, 0, 255)
        pending = (disposal, rect, saved)
        if n in ends:
            group = ends[n]
            frames.append({
                "delay_cs": sum(images[i].get("delay", 0) for i in group),
                "left": left, "top": top, "width": iw, "height": ih,
                "disposal": DISPOSAL_NAMES[disposal],
                "transparent_index": transparent,
                "interlaced": bool(im.get("interlaced")),
                "local_palette": im.get("local") is not None,
                "rgba": bytes(c for px in canvas for c in px),
            })
    return frames


# ---------------------------------------------------------------------------------------------
# GIF writer


def table_bytes(palette):
    size = 2
    while size < len(palette):
        size *= 2
    field = size.bit_length() - 2
    padded = list(palette) + [(0, 0, 0)] * (size - len(palette))
    return field, bytes(c for rgb in padded for c in rgb)


def image_data(im, spec):
    """The LZW data sub-blocks of an image (without the code size byte), honouring damage options."""
    palette = im.get("local") or spec.get("global") or []
    indices = im["indices"]
    if im.get("interlaced"):
        iw = im["width"]
        indices = [v for row in interlace_order(im["height"]) for v in indices[row * iw:(row + 1) * iw]]
    indices = indices + im.get("excess", [])
    min_size = max(2, (max(indices + [1])).bit_length(), (max(len(palette), 2) - 1).bit_length())
    if "codes" in im:
        min_size = im["min_size"]
        data = pack_codes(im["codes"])
    else:
        stats = {}
        data = pack_codes(lzw_codes(indices, min_size, im.get("clear_when_full", True), not im.get("no_end_code"), stats))
        assert stats.get("full", False) == im.get("fills_table", False), "table fill not as intended"
    im["decoded"] = lzw_decode_count(data[:im["cut_after"]] if "cut_after" in im else data, min_size, im["width"] * im["height"])
    if "cut_after" in im:
        # A sub-block that promises more bytes than the file still has.
        kept = data[:im["cut_after"]]
        return bytes([min_size]), bytes([min(255, len(data))]) + kept, True
    blocks = sub_blocks(data) + (sub_blocks(bytes(im["extra_block"])) if "extra_block" in im else b"") + b"\x00"
    return bytes([min_size]), blocks, False


def gif_bytes(spec):
    w, h = spec["canvas"]
    out = bytearray(b"GIF89a")
    packed = 0
    global_table = b""
    if spec.get("global"):
        field, global_table = table_bytes(spec["global"])
        packed = 0x80 | 0x70 | field
    out += struct.pack("<HHBBB", w, h, packed, spec.get("background", 0), 0) + global_table
    if spec.get("loop") is not None:
        ident, count = spec["loop"]
        out += b"\x21\xFF\x0B" + ident + b"\x03\x01" + struct.pack("<H", count) + b"\x00"
    out += b"\x21\xFE\x05hello\x00"  # a comment, to be skipped
    for im in spec["images"]:
        transparent = im.get("transparent")
        gce_packed = (im.get("disposal", 1) << 2) | (1 if transparent is not None else 0)
        out += b"\x21\xF9\x04" + struct.pack("<BHB", gce_packed, im.get("delay", 0), transparent or 0) + b"\x00"
        local = b""
        packed = 0x40 if im.get("interlaced") else 0
        if im.get("local") is not None:
            field, local = table_bytes(im["local"])
            packed |= 0x80 | field
        out += b"\x2C" + struct.pack("<HHHHB", im.get("left", 0), im.get("top", 0), im["width"], im["height"], packed) + local
        code_size, blocks, cut = image_data(im, spec)
        out += code_size + blocks
        if cut:
            return bytes(out)
    if not spec.get("no_trailer"):
        out += b"\x3B"
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# Fixtures

RED, GREEN, BLUE, WHITE, BLACK, YELLOW = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0), (255, 255, 0)
GLOBAL = [RED, GREEN, BLUE, WHITE]


def noise(count, colours, seed=12345):
    """Deterministic pseudo-random indices (a 32-bit LCG)."""
    out = []
    for _ in range(count):
        seed = (seed * 1103515245 + 12345) & 0xFFFFFFFF
        out.append((seed >> 16) % colours)
    return out


def solid(w, h, index):
    return [index] * (w * h)


def pattern(w, h, colours, seed=1):
    return [((x * 7 + y * 3 + seed) * 13 // 5) % colours for y in range(h) for x in range(w)]


def disposal_spec(method):
    return {
        "canvas": (8, 6), "global": GLOBAL, "loop": (b"NETSCAPE2.0", 0),
        "images": [
            {"width": 8, "height": 6, "indices": solid(8, 6, 0), "delay": 10, "disposal": 1},
            {"left": 2, "top": 1, "width": 4, "height": 3, "indices": pattern(4, 3, 4), "delay": 10, "disposal": method,
             "transparent": 3},
            {"left": 1, "top": 3, "width": 5, "height": 3, "indices": solid(5, 3, 2), "delay": 20, "disposal": method},
            {"left": 5, "top": 0, "width": 3, "height": 2, "indices": solid(3, 2, 1), "delay": 30, "disposal": 1},
        ],
    }


def fixtures():
    f = {}
    f["disposal_none.gif"] = disposal_spec(1)
    f["disposal_unspecified.gif"] = disposal_spec(0)
    f["disposal_background.gif"] = disposal_spec(2)
    f["disposal_previous.gif"] = disposal_spec(3)
    # Restore-previous on the very first image goes back to the empty (transparent) canvas.
    f["disposal_previous_first.gif"] = {
        "canvas": (6, 4), "global": GLOBAL,
        "images": [
            {"width": 6, "height": 4, "indices": solid(6, 4, 1), "delay": 5, "disposal": 3},
            {"left": 1, "top": 1, "width": 2, "height": 2, "indices": solid(2, 2, 2), "delay": 5, "disposal": 1},
        ],
    }
    f["interlaced.gif"] = {
        "canvas": (7, 13), "global": GLOBAL,
        "images": [
            {"width": 7, "height": 13, "indices": pattern(7, 13, 4), "interlaced": True, "delay": 10},
            {"left": 2, "top": 1, "width": 3, "height": 10, "indices": pattern(3, 10, 4, seed=5), "interlaced": True, "delay": 10},
        ],
    }
    f["local_palettes.gif"] = {
        "canvas": (6, 4), "global": GLOBAL,
        "images": [
            {"width": 6, "height": 4, "indices": pattern(6, 4, 4), "delay": 10},
            {"left": 0, "top": 0, "width": 3, "height": 4, "indices": pattern(3, 4, 2), "delay": 10,
             "local": [YELLOW, (10, 20, 30)]},
            {"left": 3, "top": 0, "width": 3, "height": 4, "indices": pattern(3, 4, 4, seed=2), "delay": 10},
        ],
    }
    # No global table at all: each image brings its own.
    f["no_global_palette.gif"] = {
        "canvas": (4, 3),
        "images": [
            {"width": 4, "height": 3, "indices": pattern(4, 3, 8), "delay": 10,
             "local": [(i * 30, 255 - i * 30, i * 10) for i in range(8)]},
        ],
    }
    f["transparency.gif"] = {
        "canvas": (6, 4), "global": GLOBAL,
        "images": [
            {"width": 6, "height": 4, "indices": pattern(6, 4, 4), "delay": 10},
            # Index 2 is transparent: the first image shows through.
            {"width": 6, "height": 4, "indices": pattern(6, 4, 4, seed=3), "delay": 10, "transparent": 2},
            # Indices 4..7 are beyond the 4-colour table: opaque black; the transparent index 6 is
            # beyond it too, so it is ignored.
            {"left": 1, "top": 1, "width": 4, "height": 2, "indices": [0, 4, 5, 6, 7, 6, 1, 2], "delay": 10, "transparent": 6},
        ],
    }
    for name, loop in (("loop_absent.gif", None), ("loop_zero.gif", (b"NETSCAPE2.0", 0)),
                       ("loop_five.gif", (b"NETSCAPE2.0", 5)), ("loop_animexts.gif", (b"ANIMEXTS1.0", 3))):
        f[name] = {
            "canvas": (3, 2), "global": GLOBAL, "loop": loop,
            "images": [{"width": 3, "height": 2, "indices": solid(3, 2, i), "delay": 10 * (i + 1)} for i in range(3)],
        }
    # High-colour tiling: zero-delay images join the next image with a delay; trailing ones end a last frame.
    f["tiling.gif"] = {
        "canvas": (4, 4), "global": GLOBAL,
        "images": [
            {"left": 0, "top": 0, "width": 2, "height": 2, "indices": solid(2, 2, 0), "delay": 0},
            {"left": 2, "top": 0, "width": 2, "height": 2, "indices": solid(2, 2, 1), "delay": 0,
             "local": [YELLOW, (1, 2, 3)]},
            {"left": 0, "top": 2, "width": 4, "height": 2, "indices": solid(4, 2, 2), "delay": 7},
            {"left": 1, "top": 1, "width": 2, "height": 2, "indices": solid(2, 2, 3), "delay": 0, "disposal": 2},
            {"left": 0, "top": 0, "width": 1, "height": 1, "indices": [1], "delay": 12},
            {"left": 3, "top": 3, "width": 1, "height": 1, "indices": [0], "delay": 0},
        ],
    }
    f["all_zero_delays.gif"] = {
        "canvas": (4, 2), "global": GLOBAL,
        "images": [{"left": i, "top": 0, "width": 1, "height": 2, "indices": solid(1, 2, i), "delay": 0} for i in range(4)],
    }
    f["out_of_bounds.gif"] = {
        "canvas": (6, 4), "global": GLOBAL,
        "images": [
            {"width": 6, "height": 4, "indices": solid(6, 4, 0), "delay": 10},
            {"left": 4, "top": 2, "width": 4, "height": 4, "indices": pattern(4, 4, 4), "delay": 10, "disposal": 2},
            {"left": 10, "top": 1, "width": 3, "height": 2, "indices": solid(3, 2, 2), "delay": 10},
            {"left": 2, "top": 9, "width": 2, "height": 2, "indices": solid(2, 2, 3), "delay": 10},
        ],
    }
    # Noise in 256 colours fills the 4096-entry code table: one encoder clears and starts over,
    # the other keeps going with the full table ("deferred clear"), which decoders must follow.
    noise_palette = [((i * 37) % 256, (i * 91) % 256, (i * 53) % 256) for i in range(256)]
    for name, clears in (("lzw_full_table.gif", True), ("lzw_deferred_clear.gif", False)):
        f[name] = {
            "canvas": (72, 72), "global": noise_palette,
            "images": [{"width": 72, "height": 72, "indices": noise(72 * 72, 256), "delay": 10,
                        "clear_when_full": clears, "fills_table": True}],
        }
    # Damaged files: decoded as far as possible, with warnings.
    f["truncated.gif"] = {
        "canvas": (8, 6), "global": GLOBAL,
        "images": [
            {"width": 8, "height": 6, "indices": solid(8, 6, 1), "delay": 10},
            {"left": 0, "top": 0, "width": 8, "height": 6, "indices": pattern(8, 6, 4), "delay": 10, "cut_after": 9},
        ],
    }
    f["truncated_interlaced.gif"] = {
        "canvas": (5, 9), "global": GLOBAL,
        "images": [
            {"width": 5, "height": 9, "indices": solid(5, 9, 1), "delay": 10},
            {"width": 5, "height": 9, "indices": pattern(5, 9, 4), "delay": 10, "interlaced": True, "cut_after": 8},
        ],
    }
    f["no_trailer.gif"] = {
        "canvas": (3, 2), "global": GLOBAL, "no_trailer": True,
        "images": [{"width": 3, "height": 2, "indices": pattern(3, 2, 4), "delay": 10},
                   {"width": 3, "height": 2, "indices": solid(3, 2, 2), "delay": 10}],
    }
    f["no_end_code.gif"] = {
        "canvas": (5, 3), "global": GLOBAL,
        "images": [{"width": 5, "height": 3, "indices": pattern(5, 3, 4), "delay": 10, "no_end_code": True},
                   {"left": 1, "top": 1, "width": 2, "height": 2, "indices": solid(2, 2, 3), "delay": 10}],
    }
    f["extra_data.gif"] = {
        "canvas": (5, 3), "global": GLOBAL,
        "images": [{"width": 5, "height": 3, "indices": pattern(5, 3, 4), "delay": 10, "extra_block": [1, 2, 3, 4]},
                   {"width": 2, "height": 2, "indices": solid(2, 2, 2), "delay": 10, "excess": [1, 1, 3, 0, 2]}],
    }
    # Second image: clear, three literals, then code 15 while the table has only 8 entries.
    f["bad_lzw_later.gif"] = {
        "canvas": (4, 2), "global": GLOBAL,
        "images": [{"width": 4, "height": 2, "indices": solid(4, 2, 0), "delay": 10},
                   {"width": 4, "height": 2, "indices": [1, 2, 3, 0, 0, 0, 0, 0], "delay": 10, "min_size": 2,
                    "codes": [(4, 3), (1, 3), (2, 3), (3, 3), (15, 4), (5, 4)]}],
    }
    f["bad_lzw_first.gif"] = {
        "canvas": (4, 2), "global": GLOBAL, "error": "corrupt",
        "images": [{"width": 4, "height": 2, "indices": solid(4, 2, 0), "delay": 10, "min_size": 2,
                    "codes": [(4, 3), (7, 3), (5, 3)]}],
    }
    f["zero_width.gif"] = {
        "canvas": (0, 10), "global": GLOBAL, "error": "corrupt",
        "images": [{"width": 1, "height": 1, "indices": [0]}],
    }
    f["huge_canvas.gif"] = {
        "canvas": (60000, 60000), "global": GLOBAL, "error": "limitExceeded",
        "images": [{"width": 1, "height": 1, "indices": [0]}],
    }
    return f


def png_bytes(width, height, rgba):
    """An 8-bit RGBA PNG, no filtering."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    stride = width * 4
    raw = b"".join(b"\x00" + rgba[y * stride:(y + 1) * stride] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    os.makedirs(os.path.join(OUT, "expected"), exist_ok=True)
    expected = {}
    for name, spec in fixtures().items():
        data = gif_bytes(spec)
        with open(os.path.join(OUT, name), "wb") as fh:
            fh.write(data)
        if "error" in spec:
            expected[name] = {"error": spec["error"]}
            continue
        damaged = any(k in im for im in spec["images"] for k in ("cut_after", "no_end_code", "extra_block", "excess", "codes"))
        frames = composite(spec)
        for n, frame in enumerate(frames):
            with open(os.path.join(OUT, "expected", "%s-%d.png" % (name[:-4], n)), "wb") as fh:
                fh.write(png_bytes(spec["canvas"][0], spec["canvas"][1], frame.pop("rgba")))
        expected[name] = {
            "canvas": list(spec["canvas"]),
            "loop_count": spec["loop"][1] if spec.get("loop") else None,
            "warns": damaged or bool(spec.get("no_trailer")),
            "frames": frames,
        }
    with open(os.path.join(OUT, "not_a_gif.gif"), "wb") as fh:
        fh.write(b"This is a text file, not a GIF.\n")
    expected["not_a_gif.gif"] = {"error": "notMedia"}
    with open(os.path.join(OUT, "expected.json"), "w") as fh:
        json.dump(expected, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
