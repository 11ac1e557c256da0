#!/usr/bin/env python3
"""Writes raw rgb24 frames to stdout for Fixtures/make-fixtures.sh.

  counter W H N [B] N solid frames; frame n has R = 8 + 16*(n % 16),
                     G = 8 + 16*((n // 16) % 16), B = 200 (or B).
  bar W H N          N black frames with a white bar 6 pixels wide, all the way down, at
                     x = 6*n (n = 0, 1, ...; wrapping within W): woven two at a time into
                     interlaced frames, each field shows the bar somewhere else.
  quadrants W H N    N identical frames: top-left red, top-right green,
                     bottom-left blue, bottom-right white.
  vfr_setpts MS      prints a setpts expression mapping frame index N to the
                     given comma-separated times in milliseconds; use it after
                     settb=1/1000 (integers, so no float truncation).
  edit_list IN OUT E rewrites the one edit list of IN (an MP4 with its moov at the
                     end, so no chunk offset moves) to the entries E, "duration:media_time,...":
                     durations in movie time-scale units, media times in the track's.
"""
import struct
import sys


def counter_colour(n, blue=200):
    return (8 + 16 * (n % 16), 8 + 16 * ((n // 16) % 16), blue)


def counter(w, h, count, out, blue=200):
    for n in range(count):
        out.write(bytes(counter_colour(n, blue)) * (w * h))


def bar(w, h, count, out):
    for n in range(count):
        x = (6 * n) % (w - 5)
        row = bytes(3 * x) + bytes((255, 255, 255)) * 6 + bytes(3 * (w - x - 6))
        out.write(row * h)


def quadrants(w, h, count, out):
    hw, hh = w // 2, h // 2
    top = bytes((255, 0, 0)) * hw + bytes((0, 255, 0)) * (w - hw)
    bottom = bytes((0, 0, 255)) * hw + bytes((255, 255, 255)) * (w - hw)
    frame = top * hh + bottom * (h - hh)
    for _ in range(count):
        out.write(frame)


def vfr_setpts(times):
    ms = [int(t) for t in times.split(",") if t.strip()]
    expr = str(ms[-1])
    for i in range(len(ms) - 2, -1, -1):
        expr = "if(eq(N\\,%d)\\,%d\\,%s)" % (i, ms[i], expr)
    print(expr)


def boxes(data, start, end, path):
    """(offset, size) of each box on `path` (a list of four-character names) within data[start:end]."""
    found = []
    i = start
    while i < end:
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        if kind.decode("latin-1") == path[0]:
            found += [[(i, size)]] if len(path) == 1 else [[(i, size)] + f for f in boxes(data, i + 8, i + size, path[1:])]
        i += size
    return found


def edit_list(source, target, entries):
    data = bytearray(open(source, "rb").read())
    chains = boxes(data, 0, len(data), ["moov", "trak", "edts", "elst"])
    assert len(chains) == 1 and data.rfind(b"moov") > data.find(b"mdat"), "one edit list, moov at the end"
    chain = chains[0]
    start, size = chain[-1]
    pairs = [tuple(int(x) for x in e.split(":")) for e in entries.split(",")]
    body = struct.pack(">4sII", b"elst", 0, len(pairs)) + b"".join(struct.pack(">IiI", d, t, 0x10000) for d, t in pairs)
    new = struct.pack(">I", 4 + len(body)) + body
    for offset, parent in chain[:-1]:
        struct.pack_into(">I", data, offset, parent + len(new) - size)
    data[start:start + size] = new
    open(target, "wb").write(bytes(data))


def main(argv):
    if len(argv) == 3 and argv[1] == "vfr_setpts":
        vfr_setpts(argv[2])
        return 0
    if len(argv) == 5 and argv[1] == "edit_list":
        edit_list(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 6 and argv[1] == "counter":
        counter(int(argv[2]), int(argv[3]), int(argv[4]), sys.stdout.buffer, int(argv[5]))
        sys.stdout.buffer.flush()
        return 0
    if len(argv) != 5 or argv[1] not in ("counter", "quadrants", "bar"):
        sys.stderr.write(__doc__)
        return 2
    w, h, n = int(argv[2]), int(argv[3]), int(argv[4])
    out = sys.stdout.buffer
    {"counter": counter, "quadrants": quadrants, "bar": bar}[argv[1]](w, h, n, out)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
